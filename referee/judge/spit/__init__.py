"""The Spit referee: settled table snapshots in, the calls of the event log out, with the rules engine as the judge.

The referee keeps the engine's position of the table (`SpitState`, built with the camera-state
constructor `SpitState.observed` from each layout as read: counts from the deal, visible tops,
unknown cards left unknown) and explains every settled difference between what the camera
sees and what the engine expects by a move:

- a card on a spit pile that is the face-up top of a stock pile (or was just lifted from one):
  that player plays it; legal: `play` (the engine moves on), else `illegal_play` with the
  engine's reason (the engine does not move; the card is expected back);
- a face-down stock top seen face up: `turn_up` (the card is revealed to the engine);
- a stock top seen in an empty place of the same player: `move_to_space` (on an occupied one:
  stacking, legal only with the stack-equal option, else an `illegal_play`);
- an unknown card on a spit pile at a stalemate (or at a deal's start): a spit card; once every
  pile the engine expects a card on has one, `spit`. While a move exists (on the engine's
  position when the card touched the pile: plays dated by their touch after it, and the other
  player's spit cards of the same stalemate, left out): `premature_spit` naming the move the
  engine finds; but a card read in a stock place this deal is a stock card the engine lost track
  of, neither a spit card laid early nor one turned unseen;
- a stock card lifted (its place seen without it) whose player's hand then touches a spit pile:
  the card counts the moment it touches, so it is judged at that frame, before it can be seen;
  a player's last stock card (which ends the deal) waits to be seen, but one whose hand stays on
  the pile until the slap is played at its touch once it has not come back for `TIE_WAIT_S` (one
  found lifted only once the piles are gathered, the arm over its place all along, at its player's
  first contact with a spit pile where it fits since the place last showed it);
  one that comes back after touching a pile unseen is judged there too (a race loser; not while
  that pile shows a change not read yet and was not read clear since the touch: the touch may have
  laid another card; not refused at a touch after which, before another player's contact, the pile
  showed a new card the engine has nowhere: that touch laid it, and no lifted card is judged at such
  a touch), unless
  another card was read on that pile since and the player's hand never went back there (it may
  have been another card, turned and played unseen, that went under it and stayed), or another
  card was judged laid at that touch (one hand lays one card), nor is one judged at the touch that
  laid another stock top of its player's read on that pile; a card lifted unseen is not
  refused at a touch when its hand touched a spit pile again since (it may have been laid there,
  another card at the first), nor when another of its player's places, its face-up top one that
  plays on that pile, was under the arm from before the lift to the touch and the pile has not
  been read since showing the engine's top (the hand may have laid that card there, legally);
- a stock card seen on a spit pile, never seen lifted (its place under a hand), taken off it by its
  player's hand to show what lay under it: it was refused there (it came second), and is judged at
  its touch;
- a card refused on a spit pile is expected back: its player's touches there until it is seen
  back in its place take it back, even from under a card laid on it since (once the pile shows it
  gone they may lay another card, but not lay it there again unseen: it is not refused twice);
- a card judged played, taken off its pile (its player's hand back over it, never seen laying it,
  or no other hand there since, to lay the card shown on top of it) to show a card the engine has
  nowhere (or the other player's stock top) that the other player's hand laid there less than the
  race window before it (give or take a frame), or at any time before it if that card was read
  there (if only for a frame) before the card taken back touched: that card came first, unseen
  under it; the play is undone, that card played (turned up first where its player's hand turned
  it unseen) and the card taken back judged on it (the play already called stays in the log; a
  resume's replay undoes it too); the touches of the hand that took it back date no card laid since;
- a card seen on a pile that another player's hand was over just before (or touched within a
  frame after: contacts are dated to about a frame), laying no card judged
  (touching it and holding no card seen lifted, or holding one, or one it may have turned and
  taken unseen, and no contact seen), waits (`TIE_WAIT_S`, longer while a hand is over the pile or
  it is not read again, and up to `TAKE_BACK_S` while a stock place of that player's holding a card
  is still under their arm, unread since their touch, unless the touches came within a frame of
  each other) for that card to be found under it;
  a hand lays one card at a time, so no card waits for a contact of a hand seen laying its card
  on the other pile at the same time, or touching the other pile less than `FETCH_S` after
  laying a card judged;
- a card the engine has nowhere (turned unseen) shown under another such card taken off by the
  hand that laid it lay under it: it is judged at an earlier touch (another player's, less than the
  race window before), not at the touches that laid or took back the card above;
- the other player's stock top shown under a card taken back came first: it is played at its
  player's contact; a tied card gone from the pile to show the other tied card was taken back by
  its player, hand seen or not; an unknown card waiting for a place under its player's arm is
  judged, on that player's places only, before that player's next card (turned unseen, or a stock
  top of theirs) covers it, or a card another player's hand touched the pile with (if only in the
  same frame as its own player's hand);
- two players' cards touching one pile within a frame of each other (contacts are dated to about
  a frame): the one read on top with no hand over the pile came second, judged at once (a hand
  back over the pile meanwhile is waited for as long: the card its player takes back off it was
  refused, so it came second);
- an unknown card laid, not at a stalemate, by a player whose hand was not seen on a face-down
  stock top but who has just one, that fits there: that card turned up and played (while that
  place is not read yet, turning it is the only move and the table shows nothing else unexplained
  but cards the engine has nowhere on the spit piles, for up to `TURN_S` after the card was first
  read, the place is waited for, until a hand hides it again: it may show the card turned there,
  the card laid a spit card); one whose hand
  touched their only face-down top before laying it, no other hand at the pile, turned it there,
  judged without waiting for that place to be read from under the arm (unless it would be refused
  and that turn leaves no move, or turning it is the only move on the table, the place not read
  since the card was laid and the card first read less than `TURN_S` ago: the card turned may lie
  there, the card laid a spit card);
- two players' cards on one pile less than `race_window_s` apart: `race`, the second judged
  against the new top (a card that went under the second is played first);
- `spit_call` when the engine finds no move, dated to the last move, called at once unless a
  zone shows what the engine does not expect (a card in a hand, a spit card laid and a pile
  whose play was judged at the touch, not read yet, do not hold it), or on the first read of the
  face-down top turned last, before that read settles, if the engine finds no move with it turned;
  never once a spit card of the stalemate touched its pile a frame or more before (the players
  called it), read or not (a turn dated by its card's first sight, no hand seen at the place,
  counts from when its place was last hidden, and one dated by a touch under a hand that hid its
  place from its last face-down read until its card was read, from when that hand came; a card the engine has nowhere read on a pile, still
  read there, last read clear after the stalemate began, is such a card, its hand seen or not; a
  touch after which the pile was read showing the engine's top laid none, and the call waits while
  a touch is not read yet instead of being dropped; a stock place still under a hand, not read since
  a move judged there, does not hold it: it last showed the card that move took), nor while a card
  judged turned up unseen and refused
  waits for its place to be read showing what lay under it (it may have been a spit card); a turn-up
  is not dated before its place was last read face down, if only for a frame; `deal_end` (none while the ender's place was last read showing a card
  the engine has nowhere: the position is read again); the slap from
  both hands' first contact with a spit pile after the deal end (not a hand coming for a card
  refused there, flagged or judged at its touch before the deal ended and not seen back in its
  place), "too close to call" below one frame interval; `layout` when a new layout has been read;
  `game_end`.

Calls against a player (`illegal_play`, `premature_spit`) are made only on a position the camera
read: a card is refused only when its player's hand was seen laying it (or, the hand missed, the
card was seen lying on the top last read there, no other hand over the pile since), what lay under
it was last seen there (or put there by moves judged since; a card refused there and not yet back in
its place is no part of the pile: what lay under it counts) and no hand touched that pile meanwhile
without a card judged, and no stock place shows what no move explains, nor on a top the engine has
laid there more than a frame after the card's touch (the order of the two is wrong), nor while the pile
shows the card with one it fits on read under it (`ZoneReading.under`) other than the engine's top; a card
put on a stock place read empty since the engine's last move there, or on a top never read in a stock
place (turned unseen: a guess), is not called stacked (the card the engine has there left unseen),
nor, until that pile is read showing the engine's top, one put there after its player's hand touched
a spit pile since the place last showed its top (that top may have been played there unseen, the
place under the arm); a
refused card read under the card laid on it since still lies there: its player's next touches take it
back, they do not lay it again; a refusal found at a touch, before the card is seen, waits for the card to
be seen or to come back; one taken back, held back while a stock place showed what no move explains,
is judged again, once, when no place does (within `TAKE_BACK_S`). One hand lays one card: a card not
seen on the pile is not refused at a touch whose contact the hand finder also gave to the other spit
pile, nor while another card of its player's, lifted and judged nowhere, plays on what the pile last
showed, nor at a touch made while its place lay clear and unchanged (the lift dated to an earlier
visit), and no card is refused at a touch that laid another card of its player's judged played there;
a play is undone for a card found under it that no hand was seen laying only if that card was read
under it or the played card's hand came back over the pile. A spit card is called premature
only when the places of the move the engine finds were settled when it landed, or (a spit pile) last
read as the engine has it with no unjudged touch since, the card the move needs read in its place
(and a move into a space only on counts not guessed by a re-read; a spit pile the move goes onto
last read before the card landed showing the engine's top there, then or before a move judged
since, not a card the engine never had there), or when that move is made
afterwards (a play; a turn-up dated by its player's first touch there, unless its place was last
read face down before the spit card landed and its player's hand laid a card no play or refusal
explains on a spit pile since: the turn may have come first, unseen, and that card be their spit
card), and never when the move is its player's turn-up of a place holding more than one card that their arm was
over since the last move there, less than `TOUCH_REACH_S` before (the card turned and taken looks like
the one under it; the card laid may be it), nor when its player
turned up a stock card before it and touched that place again after it, the card read there still
lying in it (the card laid may be the one turned first, the one read turned at that later touch),
and never on a position read again from the table less than `RESYNC_S` before it landed or since
(what the re-read guessed may be wrong; a play made after it does not show the position before it),
nor when the position it landed on cannot be rebuilt (a move kept needs one left out), nor when only a
hand seen over the pile (no contact) dates it and the pile was read settled after that hand came (an
arm the colour of the table, unseen, may have laid it since). When unsure,
nothing is called; the position is read again from the table if it stays unexplained (`RESYNC_S`;
while a card waits for a place under a hand to be read, each zone unexplained must have been so that
long: a card laid a moment ago beside a place long unexplained may still be explained by a move),
and the position read is logged (`resync`: stock places, spit piles, spit cards) for a resume to
replay.
A stock top read on a spit pile (if only for a frame) that its player's contact laid, not refused
there, no longer in its place when the table is read again, and on top there unexplained (on a
card laid unseen) or read nowhere, was played once it has stayed (on top `TAKE_BACK_S` after its
first read there, or covered by a card laid on it; not taken back to show the card under it):
logged as a `play` at that contact, marked `resynced`.
A re-read showing a player's stock empty ends the deal (the slap judged from the contacts
remembered); one showing both spit piles empty waits for the next layout. Counts guessed by a
re-read are corrected from what the table shows: a stock place's count once it shows nothing, or
a face-down card, under the card taken from it (`RECOUNT`; not emptied when read face down after
the card taken landed and touched by its player since: a card turned and taken unseen), and the
spit cards by who lays them (`SPIT_LAID`, `ALONE`). A layout the other verdict of a slap too close
to call would have dealt too (the same places filled) is counted as that verdict left it, spit
cards and stock places, once the spit cards laid show the slap went that way (`OTHER_SLAP`).

Event times are capture times of the frame where the card first touched its zone (the hand's
first contact frame; a turn-up: the hand's contact with the face-down card, or the frame the hand
came over the place where that contact is dated the frame after), else the first frame the new state
was seen.
Extra fields: `frame` (that frame's index) and `called_at` (the capture time of the frame at
which the call was made).
"""
