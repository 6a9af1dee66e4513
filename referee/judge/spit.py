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
  engine finds;
- a stock card lifted (its place seen without it) whose player's hand then touches a spit pile:
  the card counts the moment it touches, so it is judged at that frame, before it can be seen;
  a player's last stock card (which ends the deal) waits to be seen, but one whose hand stays on
  the pile until the slap is played at its touch once it has not come back for `TIE_WAIT_S`;
  one that comes back after touching a pile unseen is judged there too (a race loser), unless
  another card was read on that pile since and the player's hand never went back there (it may
  have been another card, turned and played unseen, that went under it and stayed);
- a stock card seen on a spit pile, never seen lifted (its place under a hand), taken off it by its
  player's hand to show what lay under it: it was refused there (it came second), and is judged at
  its touch;
- a card refused on a spit pile is expected back: its player's touches there until it is seen
  back in its place take it back, even from under a card laid on it since;
- a card seen on a pile that another player's hand was over just before, laying no card judged
  (touching it and holding no card seen lifted, or holding one, or one it may have turned and
  taken unseen, and no contact seen), waits (`TIE_WAIT_S`) for that card to be found under it;
- two players' cards touching one pile within a frame of each other (contacts are dated to about
  a frame) wait as long for the evidence: the card its player takes back off the pile was refused,
  so it came second (judged when it is back in its place); both staying, the one on top;
- an unknown card laid, not at a stalemate, by a player whose hand was not seen on a face-down
  stock top but who has just one, that fits there: that card turned up and played;
- two players' cards on one pile less than `race_window_s` apart: `race`, the second judged
  against the new top (a card that went under the second is played first);
- `spit_call` when the engine finds no move, dated to the last move, called at once unless a
  zone shows what the engine does not expect (a card in a hand, a spit card laid and a pile
  whose play was judged at the touch, not read yet, do not hold it); `deal_end`; the slap from
  both hands' first contact with a spit pile after the deal end, "too close to call" below one
  frame interval; `layout` when a new layout has been read; `game_end`.

Calls against a player (`illegal_play`, `premature_spit`) are made only on a position the
camera read: a card is refused only when its player's hand was seen laying it (or, the hand
missed, the card was seen lying on the top last read there, no other hand over the pile since), what lay under it
was last seen there (or put there by moves judged since) and no hand touched that pile meanwhile
without a card judged, and no stock place shows what no move explains; a refusal found at a
touch, before the card is seen, waits for the card to be seen or to come back. A spit card is
called premature only when the places of the move the engine finds were settled when it landed,
or (a spit pile) last read as the engine has it with no unjudged touch since, the card the move
needs read in its place (and a move into a space only on counts not guessed by a re-read), or
when that move is made afterwards (a play; a turn-up dated by its player's first touch there), and
never when its player turned up a stock card before it and touched that place again after it,
the card read there still lying in it (the card laid may be the one turned first, the one read
turned at that later touch), and never on a position read again from the table less than `RESYNC_S`
before it landed (what the re-read guessed may be wrong). When unsure, nothing is called; the position is read again from the table if it stays unexplained (`RESYNC_S`), and
the position read is logged (`resync`: stock places, spit piles, spit cards) for a resume to replay.
A re-read showing a player's stock empty ends the deal (the slap judged from the contacts
remembered); one showing both spit piles empty waits for the next layout. Counts guessed by a
re-read are corrected from what the table shows: a stock place's count once it shows nothing, or
a face-down card, under the card taken from it (`RECOUNT`), and the spit cards by who lays them
(`SPIT_LAID`, `ALONE`).

Event times are capture times of the frame where the card first touched its zone (the hand's
first contact frame; a turn-up: the frame the hand came over the place, if it was kept from
coming to rest there by the card turning under it), else the first frame the new state was seen.
Extra fields: `frame` (that frame's index) and `called_at` (the capture time of the frame at
which the call was made).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Final

from referee.cards import FACE_DOWN, Card, is_adjacent, parse_card
from referee.errors import IllegalMove, RefereeError
from referee.events import Event
from referee.observations import CARD_CODES, EMPTY
from referee.rules import get_rules
from referee.rules.spit import (
    ChoosePile,
    ImpossiblePosition,
    MoveToSpace,
    Play,
    PrematureSpit,
    Refill,
    Slap,
    Spit,
    SpitMove,
    SpitRules,
    SpitState,
    StackEqual,
    TurnUp,
    transition_events,
)
from referee.tracker import Snapshot, Touch, ZoneChange

TOO_CLOSE: Final = "too close to call"
SLAP_FALLBACK: Final = "the first player out chooses (as with free choice)"
"""Who takes a pile both hands reached within one frame interval: the camera cannot tell whose
hand is underneath, so the player who emptied their stock first has the choice."""
TOUCH_REACH_S: Final = 1.5
"""A change is dated by a hand's touch at most this long before the new state was first seen."""
LAYOUT_STILL_S: Final = 1.5
"""A layout that does not fit the counts the engine expects is read once no stock place has
changed for this long."""
UNREAD_LAYOUT_S: Final = 0.5
"""A stock place never read while the rest of a new layout has lain still this long, where a card
there is what the deal needs, is taken as dealt with its top not read (a card the reader cannot
make out must not hold up the whole game); its card counts once it is read, without a turn-up."""
RESYNC_S: Final = 2.0
"""The table showing, with every zone settled, what no move explains for this long makes the
referee read its position again from the table."""
MOVES_PER_FRAME: Final = 32
"""The most moves one frame's readings are explained by (a frame shows a handful at most)."""
DOUBT_S: Final = 2.0
"""How long after a doubtful spit card the move the engine found may be made to show it existed."""
SURE_S: Final = 0.5
"""A place under a hand when a spit card landed is taken to have shown then what it shows now
only once it has been settled this long (a change under a hand may be read late)."""
TURN_S: Final = 0.4
"""The longest a hand is seen turning a card over in place before it is at rest on it."""
TURN_MIN_S: Final = 0.15
"""A hand over a place this long before it is seen at rest there was turning its card (a shorter
wait is the hand's own approach)."""
SPIT_LEAD_S: Final = 0.1
"""A spit card is judged on the engine's position when it touched its pile: a play dated by its
touch more than this after it (a touch is seen a frame or two late; a spit card follows the
stalemate by a player's reaction, a few hundred ms) existed when it landed, so the card was
premature even if nobody can move by the time it is read; a turn-up so dated shows the card lay
face down then."""
SPIT_ROUND_S: Final = 2.0
"""Another player's spit card laid less than this before a spit card (or after it) was laid at the
same stalemate (the players' cards of one spit land up to about 2 s apart)."""
TAKE_BACK_S: Final = 2.5
"""A card refused on a spit pile is taken back by its player within this long (they notice it
within a reaction, at most 1.5 s, and reach back for it); meanwhile their hand touching that pile
is taking it back, even when it lies under a card laid on it since, or was never seen there."""
OTHER_SLAP: Final = "the spit cards laid show that a slap too close to call went the other way"
"""The reason of a `resync` that counts the spit cards as the other verdict of such a slap left them."""
SPIT_LAID: Final = "a player out of spit cards as counted laid one at a stalemate"
"""The reason of a `resync` that gives that player a spit card of the other's (`SpitReferee._spit_card_of`)."""
ALONE: Final = "a stock card was laid on a spit card waiting for the other player's: they hold none"
"""The reason of a `resync` that counts the other player out of spit cards (`SpitReferee._spat_alone`)."""
RECOUNT: Final = "a stock place shows how many cards it holds where the counts were guessed by a re-read"
"""The reason of a `resync` that corrects one stock place's count (`SpitReferee._recounted`)."""
TIE_WAIT_S: Final = 1.0
"""Two cards touching one pile within a frame of each other: if neither is taken back within this
time, the one seen on top went second. A card seen on a pile another player's hand touched just
before with no card judged waits as long for that card to be found (its place read without it)."""
When = tuple[float, int]


class UnsupportedRules(RefereeError):
    """A rule set the camera referee does not watch (yet)."""


def spit_rules(rules: str | SpitRules | Any) -> SpitRules:
    """The Spit rule set the camera-side referee watches; `UnsupportedRules` for the others
    (the five-card hand's hidden hands, more than two players)."""
    if isinstance(rules, str):
        rules = get_rules(rules)
    if not isinstance(rules, SpitRules):
        raise UnsupportedRules(f"the table referee watches Spit rule sets, not {getattr(rules, 'name', rules)!r}")
    if rules.five_card_hand or rules.players != 2:
        raise UnsupportedRules(f"the table referee does not watch {rules.name!r} (hidden hands or more than two players)")
    return rules


@dataclass(frozen=True)
class RefereeConfig:
    """`race_window_s`: two cards on one pile closer than this make a race (the engine's);
    `frame_interval_s`: the time resolution of contacts (one frame); `touch_memory_s`: how long
    a hand's touch is remembered to date a card that lands under it; `settle_frames`: the
    tracker's, so that a card taken back is judged only once the pile it touched has settled."""

    race_window_s: float = 0.5
    frame_interval_s: float = 1 / 30
    touch_memory_s: float = 4.0
    settle_frames: int = 3

    def __post_init__(self) -> None:
        if not (self.race_window_s > 0 and self.frame_interval_s > 0 and self.touch_memory_s > 0):
            raise ValueError("the race window, frame interval and touch memory must be positive")
        if self.settle_frames < 1:
            raise ValueError("settle_frames must be at least 1")


@dataclass
class _Lift:
    """A stock top seen lifted (in its player's hand), not yet seen landing or coming back."""

    player: str
    zone: str
    t: float
    attempted: bool = False


def layout_counts(sizes: tuple[int, ...], cards: int) -> tuple[list[int], int]:
    """Cards in each stock pile when `cards` are dealt row by row into piles of `sizes`, and
    the spit cards left over (RULES.md: "the player deals the five piles as far as the cards go").

    >>> layout_counts((1, 2, 3, 4, 5), 26), layout_counts((1, 2, 3, 4, 5), 8)
    (([1, 2, 3, 4, 5], 11), ([1, 2, 2, 2, 1], 0))
    """
    piles = [0] * len(sizes)
    dealt = 0
    for row in range(1, max(sizes) + 1):
        for k, size in enumerate(sizes):
            if size >= row and dealt < cards:
                piles[k] += 1
                dealt += 1
    return piles, cards - dealt


class SpitReferee:
    """Referees one game of a two-player Spit rule set from tracker snapshots (`update`).

    The game starts with its first layout to be read, or from `state` (a position already on the
    table, e.g. `SpitState.position(...)`). `on_event` is called with each call as it is made;
    `update` also returns them.
    """

    def __init__(self, rules: str | SpitRules = "classic", config: RefereeConfig = RefereeConfig(),
                 on_event: Callable[[Event], None] | None = None, *, state: SpitState | None = None) -> None:
        self.rules = r = spit_rules(rules)
        if r.decks != 1:
            raise ImpossiblePosition("the camera referee tells cards apart by their faces: one deck only")
        self.config = config
        self.frame_interval = config.frame_interval_s
        self.on_event = on_event
        share = r.total_cards // r.players
        self.state: SpitState = SpitState.position(
            r, {}, phase="layout", held={p: " ".join([FACE_DOWN] * share) for p in r.player_names})
        self._players = r.player_names
        self._owner = {z: r.player_names[i] for i, names in enumerate(r.stock_names) for z in names}
        self._stock_zones = tuple(self._owner)
        self._piles = r.spit_pile_names
        self._starter = dict(zip(r.spit_pile_names, r.player_names))
        self.readings: dict[str, str] = {}
        self._seen: dict[str, When] = {}
        self._touches: dict[str, list[Touch]] = {}
        self._lifted: dict[str, _Lift] = {}
        self._flagged: dict[tuple[str, str], tuple[str, float]] = {}
        self._took_back: dict[str, tuple[str, float, float]] = {}
        self._refused: list[tuple[str, str, str, float, float]] = []
        """Cards refused on a spit pile: (card, player, pile, time refused, first seen back in a
        stock place or inf), kept for the touch memory."""
        self._judged: set[tuple[str, str, float]] = set()
        self._landed: dict[str, list[tuple[float, str]]] = {}
        self._history: list[tuple[float, SpitState]] = []
        self._pending_spit: dict[str, tuple[str, When, str]] = {}
        self._last_move_t = 0.0
        self._resumed_at = -math.inf
        """The capture time the referee went on from (`resume`): touches are dated no earlier."""
        self._end_t: float | None = None
        self._first_layout = state is None
        if state is not None:
            if state.rules != r:
                raise ImpossiblePosition("the starting position is of another rule set")
            self.state = state
        self._changed_since_end: set[str] = set()
        self._slaps: dict[str, tuple[str, When]] = {}
        self._other_slap: dict[str, int] | None = None
        """After a slap too close to call: the cards each player would hold had it gone the other way."""
        self._solo: dict[str, tuple[str, When, str]] | None = None
        """The spit card of the last move, if it was a player spitting alone."""
        self._spit_shift: dict[str, int] | None = None
        """The layout read could have come from that other slap too: what it would add to each
        player's spit cards (the piles dealt look the same); kept into later deals until the spit
        cards laid settle it."""
        self._returns: list[tuple[Card, _Lift, str, When]] = []
        self._last_laid: list[tuple[Card, _Lift, str, When]] = []
        """A player's last stock card, lifted, touching a spit pile where it fits: (card, its lift, the
        pile, the touch), judged once the table shows it (`_lay_last_cards`)."""
        self._ties: dict[str, float] = {}
        self._shown: dict[str, str] = {}
        self._moved: dict[str, float] = {}
        self._face_down_seen: dict[str, float] = {}
        """Per stock place, when it was last seen showing a face-down top."""
        self._patterns = tuple(tuple(k > 0 for k in layout_counts(r.layout, n)[0]) for n in range(r.total_cards + 1))
        self._covered: dict[str, float] = {}
        self._pile_reads: dict[str, list[tuple[str, float]]] = {}
        self._unsettled_runs: dict[str, list[list[float]]] = {}
        """Per zone, the last few stretches [first, last frame time] it was unsettled."""
        self._blocked_runs: list[list[float]] = []
        """Times every zone was unsettled at once (the view blocked: no hands can cover them all)."""
        self._counts_known = True
        """The face-down cards under each stock top are as dealt and moved: no re-read has guessed
        counts (nor the cards each player held at a later deal, whose layouts are counted from them)."""
        self._spits: list[tuple[float, frozenset[str]]] = []
        """The last spits applied: their time and the players whose cards they were."""
        self._made: list[tuple[float, SpitMove]] = []
        """The last moves applied, with their times."""
        self._doubted: dict[tuple[str, str], tuple[str, When, PrematureSpit]] = {}
        """Spit cards laid while a move may have existed: (pile, card) -> (player, time, the engine's objection)."""
        self._unsure: set[tuple[str, str]] = set()
        """Spit cards laid while a move may have existed, the move not (yet) sure: not called."""
        self._used: set[tuple[str, str, float]] = set()
        """(pile, side, t) of the contacts that laid a card already judged (a play, a spit card)."""
        self._deferred = False
        self._unsettled: frozenset[str] = frozenset()
        self._left_unread: frozenset[str] = frozenset()
        """The zones the last frame left unread (changed, not read yet)."""
        self._read_back: dict[str, float] = {}
        """Per stock top once thought lifted, the last frame it was read back in its place, not settled
        there (what the place settled on before, what lay under it, is stale since)."""
        self._read_clear: dict[str, float] = {}
        """Per zone, the last frame it was read with no hand over it and no new state pending."""
        self._shown_until: dict[str, float] = {}
        """Per stock place, the last frame it was read showing what it showed before its last change."""
        self._layout_due = math.inf
        self._unread_tops: set[str] = set()
        """Stock places of the last layout dealt with their tops not read yet (`UNREAD_LAYOUT_S`)."""
        self._odd_since = math.inf
        self._odd: set[str] = set()
        self._call: When | None = None
        self.resyncs = 0
        """How many times the engine's position was read again from the table."""
        self._resynced_at = -math.inf
        """When the engine's position was last read again from the table (`_set_position`)."""
        self._now: When = (0.0, 0)
        self._out: list[Event] = []

    def resume(self, state: SpitState, t: float, *, counts_known: bool = True) -> None:
        """Go on from `state`, the position rebuilt from a game's log whose last call was made at
        capture time `t` (`referee.judge.resume`); the table is then read afresh (between deals,
        every place read counts as changed since the deal ended). `counts_known`: False when the
        log has a re-read of the table (`resync`; the replay's). A hand
        already touching a place then (its contact begun before `t`) is dated from the frame it is
        first seen in: nothing from before `t` dates or makes a call."""
        if state.rules != self.rules:
            raise ImpossiblePosition("the position to go on from is of another rule set")
        self.state = state
        self._counts_known = counts_known
        self._first_layout = False
        self._last_move_t = t
        self._resumed_at = t
        self._moved = dict.fromkeys(self._owner, t)
        self._end_t = None if state.phase in ("start", "play") else t
        self._changed_since_end = set()

    # ------------------------------------------------------------------------------ the feed

    def update(self, snap: Snapshot) -> list[Event]:
        """Take one frame's snapshot; the calls it makes (often none)."""
        previous = self._now[0]
        self._now = (snap.t, snap.frame)
        self._out = []
        self._left_unread = snap.unread
        if self._owner and snap.unsettled >= set(self._owner) | set(self._piles):
            if self._blocked_runs and self._blocked_runs[-1][1] == previous:
                self._blocked_runs[-1][1] = snap.t
            else:
                self._blocked_runs.append([snap.t, snap.t])
                del self._blocked_runs[:-8]
        for zone in snap.unsettled:
            self._covered[zone] = snap.t
            runs = self._unsettled_runs.setdefault(zone, [])
            if runs and runs[-1][1] == previous:
                runs[-1][1] = snap.t
            else:
                runs.append([snap.t, snap.t])
                del runs[:-8]
        if snap.touches:
            self._remember(tuple(touch if touch.t >= self._resumed_at else replace(touch, t=snap.t, frame=snap.frame)
                                 for touch in snap.touches))
        if snap.changes:
            for change in snap.changes:
                self._changed(change)
            self._reconcile()
        elif snap.touches and self.state.slap_due:
            self._watch_slap()
        if snap.touches and self.state.phase == "play" and self._laid(snap.touches):
            self._reconcile()
        if self._returns:
            self._judge_returns()
        if self._last_laid:
            self._lay_last_cards()
        if not snap.changes and (
                (self._deferred and snap.unsettled != self._unsettled)
                or (self.state.phase == "layout" and self._layout_due <= snap.t)
                or (self._ties and min(self._ties.values()) <= snap.t - TIE_WAIT_S)):
            self._reconcile()
        if snap.frame % 15 == 0 and self.state.phase == "play":  # twice a second: anything left unexplained?
            self._odd = self._unexplained()
            self._odd_since = min(self._odd_since, snap.t) if self._odd else math.inf
        if self._odd_since + RESYNC_S <= snap.t and self.state.phase == "play" and all(map(self._clear, self._odd)):
            self._odd = self._unexplained()
            if self._odd and not any(map(self._unread, self._odd)):
                self._resync()
                self._reconcile()
        if self._spit_shift is not None and self._pending_spit and self._alone_by_the_other_slap():
            self._slap_went_the_other_way()
            self._reconcile()
        if self._doubted:
            self._settle_doubts()
        if self._call is not None:
            self._call_spit()
        for zone, seen in snap.read.items():  # a stock top read in its place, if only for a frame
            lift = self._lifted.get(seen)
            if lift is not None and lift.zone == zone and not lift.attempted and lift.t < snap.t \
                    and self._expected(zone) == seen and not self._touched_since(lift.player, lift.t, snap.t):
                del self._lifted[seen]  # back there (or never lifted), having touched no pile: not in a hand
                self._read_back[seen] = snap.t
        self._unsettled = snap.unsettled
        shown = set()
        for zone in snap.zones:
            if zone not in snap.unsettled and zone not in snap.unread:
                self._read_clear[zone] = snap.t
                if zone in self._owner:
                    shown.add(snap.zones[zone])
        if any(item[4] == math.inf and item[0] in shown for item in self._refused):  # read back in its place
            self._refused = [(*item[:4], snap.t) if item[4] == math.inf and item[0] in shown else item
                             for item in self._refused]
        return self._out

    def _call_spit(self) -> None:
        """"Spit!" once the engine's stalemate stands on a table it can explain: dated to the
        move that made it. A move found meanwhile (the stalemate was an artefact of a card not
        yet read) cancels it. Not waited for: a card in a hand (the engine has it in its place,
        where it has no move, or the engine would find one) unless it has been there longer than
        `TOUCH_REACH_S`, a spit card already laid, and a spit pile still under a hand whose last
        read is older than the play judged there at its touch (a card counts the moment it touches)."""
        if not self.state.is_stalemate() or self.state.phase != "play":
            self._call = None
            return
        if any(not lift.attempted and self._now[0] - lift.t > TOUCH_REACH_S for lift in self._lifted.values()):
            return  # a card in a hand this long: the engine may have missed where it went
        for zone in self._unexplained():
            pending = self._pending_spit.get(zone)
            if pending is not None and self.readings.get(zone) == pending[0]:
                continue
            if not self._clear(zone) and self._unread(zone):
                continue
            return
        call, self._call = self._call, None
        if call is not None:
            self._emit("spit_call", call)

    def _remember(self, touches: tuple[Touch, ...]) -> None:
        horizon = self._now[0] - self.config.touch_memory_s
        for touch in touches:
            kept = self._touches.setdefault(touch.zone, [])
            if kept and kept[0].t < horizon:
                kept[:] = [k for k in kept if k.t >= horizon]
            kept.append(touch)

    def _changed(self, change: ZoneChange) -> None:
        zone = change.zone
        if zone in self._piles:
            self._lifted_off(zone, change.seen_t)
            self._taken_off_unseen(zone, change.after)
        self.readings[zone] = change.after
        self._seen[zone] = (change.seen_t, change.seen_frame)
        if self._end_t is not None:
            self._changed_since_end.add(zone)
        if zone in self._owner:
            self._layout_due = change.seen_t + LAYOUT_STILL_S
        if zone in self._piles:
            reads = self._pile_reads.setdefault(zone, [])
            reads.append((change.after, change.seen_t))
            del reads[:-4]
            self._ties.pop(zone, None)
            for key in [key for key in self._flagged if key[0] == zone and key[1] != change.after]:
                side, since = self._flagged.pop(key)
                self._unsure.discard(key)
                self._took_back[zone] = (side, since, change.seen_t)
                lift = self._lifted.get(key[1])
                if lift is not None and lift.attempted:  # taken back into its player's hand: it may be laid again
                    if self.readings.get(lift.zone) == key[1]:
                        del self._lifted[key[1]]  # its place was never seen without it: it goes back unseen
                    else:
                        self._lifted[key[1]] = _Lift(lift.player, lift.zone, change.seen_t)
            return
        self._shown_until[zone] = self._read_clear.get(zone, change.seen_t)
        if change.after == FACE_DOWN:
            self._face_down_seen[zone] = change.seen_t
        if self._flagged and change.after in CARD_CODES:  # a flagged card back in a stock place
            for key in [key for key in self._flagged if key[1] == change.after]:
                del self._flagged[key]
        lift = self._lifted.get(change.after)
        if lift is not None and lift.zone == zone and self._expected(zone) == change.after:
            del self._lifted[change.after]
            if not lift.attempted:
                self._came_back(change.after, lift, change.seen_t)
        self._refused = [(*item[:4], change.seen_t) if item[0] == change.after and item[4] == math.inf else item
                         for item in self._refused]

    def _lifted_off(self, pile: str, gone: float) -> None:
        """The card read on `pile` is gone from it at `gone`: if it is a stock card not judged yet
        (waiting for a rival's card) and its player's hand touched the pile after it was read there,
        its player took it back, so it was refused (`_took_back`: the touch that laid it and those
        that took it back lay no card, and it is judged when it is seen back in its place)."""
        lift = self._lifted.get(self.readings.get(pile, EMPTY))
        seen = self._seen.get(pile)
        if lift is None or lift.attempted or seen is None:
            return
        laid = self._when(pile, lift.player, seen)
        if laid != seen and any(touch.contact and touch.side == lift.player and seen[0] <= touch.t <= gone
                                for touch in self._touches.get(pile, ())):
            self._took_back[pile] = (lift.player, laid[0], gone)

    def _taken_off_unseen(self, pile: str, after: str) -> None:
        """The card read on `pile` is a face-up stock top never seen lifted (its place under a hand),
        laid by its player's touch, and the pile now shows `after`, what lay under it (the engine's
        top, or another player's stock card laid just before): its player took it back, so it was
        refused there and came second; it is judged at that touch once the pile is clear (`_returns`)."""
        code = self.readings.get(pile, EMPTY)
        seen = self._seen.get(pile)
        if code not in CARD_CODES or code in self._lifted or seen is None or self.state.phase != "play":
            return
        card = parse_card(code)
        source = self._stock_top_of(card)
        if source is None:
            return
        player, zone = source
        rival = self._stock_top_of(parse_card(after)) if after in CARD_CODES else None
        if after != self._expected(pile) and (rival is None or rival[0] == player):
            return
        laid = self._last_touch(pile, seen, {player})
        if laid is not None and laid[1][0] >= seen[0] - TOUCH_REACH_S:
            self._returns.append((card, _Lift(player, zone, laid[1][0]), pile, laid[1]))

    # ------------------------------------------------------------------------------ helpers

    def _emit(self, kind: str, when: When, **fields: Any) -> None:
        event = Event.make(kind, round(when[0], 6), **fields, frame=when[1], called_at=round(self._now[0], 6))
        self._out.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def _expected(self, zone: str) -> str:
        s = self.state
        if zone in self.rules.pile_index:
            top = s.top(zone)
            return EMPTY if top is None else top.code
        pile = s.pile(zone)
        if not pile:
            return EMPTY
        top = s.top(zone)
        return FACE_DOWN if top is None else top.code

    def _under(self, zone: str) -> str:
        """What a stock pile shows with its top card lifted."""
        s = self.state
        pile = s.pile(zone)
        if len(pile) < 2:
            return EMPTY
        below = pile[-2]
        return below.code if s.face_up(zone) > 1 and below is not None else FACE_DOWN

    def _when(self, zone: str, side: str | None, seen: When) -> When:
        """The start of the last contact of a hand of `side` (any side: None) with `zone` within
        `TOUCH_REACH_S` before `seen`; else the start of the last time such a hand covered it;
        else `seen` itself (the first frame the new state was seen)."""
        cover: When | None = None
        for touch in reversed(self._touches.get(zone, ())):
            if touch.t > seen[0] or (side is not None and touch.side != side):
                continue
            if touch.t < seen[0] - TOUCH_REACH_S:
                break
            if touch.contact:
                if cover is not None and touch.t < cover[0] - 0.1:
                    break  # the last hand there covered it without a contact seen
                return touch.t, touch.frame
            if cover is None:
                cover = (touch.t, touch.frame)
        return cover or seen

    def _hand_came(self, zone: str, side: str, t: float) -> float:
        """When the hand of `side` whose contact with `zone` began at `t` came over it: the start of
        its last cover of the place less than `TURN_S` before (a hand taking a card), else `t`. A card
        lifted there left it after that; the hand may touch a spit pile with it before its contact
        with the place is dated (a hand over both at once)."""
        came = t
        for touch in self._touches.get(zone, ()):
            if touch.side == side and not touch.contact and t - TURN_S <= touch.t <= t:
                came = touch.t
        return min(came, t)

    def _last_touch(self, zone: str, seen: When, sides: set[str] | None = None) -> tuple[str, When] | None:
        """The side and first contact of the hand that touched `zone` last before `seen` (one of
        `sides`, if given), leaving out a hand that was taking back a card flagged there."""
        touches = self._touches.get(zone, ())
        skip: set[float] = set()
        took = self._took_back.get(zone)
        if took is not None:  # the touch that laid a flagged card and the one that took it back
            side, since, gone = took
            skip.add(since)
            skip.update([t.t for t in touches if t.contact and t.side == side and since < t.t <= gone][:1])
        for touch in reversed(touches):
            if touch.t > seen[0] or not touch.contact or (sides is not None and touch.side not in sides) \
                    or (zone, touch.side, touch.t) in self._used:
                continue
            if took is not None and touch.side == took[0] and touch.t in skip:
                continue
            return touch.side, (touch.t, touch.frame)
        return None

    def _last_cover(self, zone: str, seen: When, sides: set[str] | None = None) -> tuple[str, When] | None:
        """The side and the first frame of the last hand (one of `sides`, if given) seen over `zone`
        less than `TOUCH_REACH_S` before `seen`, where no contact was seen."""
        for touch in reversed(self._touches.get(zone, ())):
            if seen[0] - TOUCH_REACH_S <= touch.t <= seen[0] and not touch.contact \
                    and (sides is None or touch.side in sides):
                return touch.side, (touch.t, touch.frame)
        return None

    def _stock_top_of(self, card: Card) -> tuple[str, str] | None:
        """(player, zone) of the stock pile whose face-up top is `card`, or that it was lifted from."""
        lift = self._lifted.get(card.code)
        if lift is not None and self.state.top(lift.zone) is card:
            return lift.player, lift.zone
        for zone in self._stock_zones:
            if self.state.top(zone) is card:
                return self._owner[zone], zone
        return None

    def _landed_on(self, t: float, side: str) -> SpitState:
        """The engine's position when a spit card of `side` touched a pile at `t`: the last plays,
        dated by their touch more than `SPIT_LEAD_S` after it, left out, and so are another
        player's spit cards dated less than `SPIT_ROUND_S` before it or later (laid at the same
        stalemate); any other move since is taken to have been made before it (a move applied
        after a play left out, as a turn-up whose card was read late, is made again without it)."""
        state = self.state
        kept: list[SpitMove] = []
        passed: list[SpitMove] = []
        for (when, previous), (_, move) in zip(reversed(self._history), reversed(self._made)):
            if isinstance(move, Spit):
                if not any(date == when and side not in players and date > t - SPIT_ROUND_S
                           for date, players in self._spits):
                    break
            elif not (when > t + SPIT_LEAD_S and ((isinstance(move, Play) and any(
                    touch.contact and touch.side == move.player and touch.t == when
                    for touch in self._touches.get(move.to, ()))) or (isinstance(move, TurnUp) and any(
                    touch.contact and touch.side == move.player and when <= touch.t <= when + TURN_S
                    for touch in self._touches.get(move.pile, ()))))):
                passed.insert(0, move)  # made before it, or dated less surely (a turn-up with no touch seen)
                continue
            state, kept = previous, list(passed)
        for move in kept:
            try:
                state = state.apply(move)
            except IllegalMove:
                return self.state
        return state

    def _state_at(self, t: float, *, before: bool = False) -> SpitState:
        """The engine's position at time `t` (moves dated later, or with `before` at `t` too,
        left out), as far as remembered."""
        state = self.state
        for when, previous in reversed(self._history):
            if when < t or (when == t and not before):
                break
            state = previous
        return state

    def _apply(self, move: SpitMove, when: When, **extra: Any) -> None:
        self._solo = None
        before = self.state
        after = before.apply(move)
        self.state = after
        self._history.append((when[0], before))
        self._made.append((when[0], move))
        del self._made[:-16]
        for name in ("source", "to", "pile"):
            zone = getattr(move, name, None)
            if isinstance(zone, str):
                self._moved[zone] = max(self._moved.get(zone, 0.0), when[0])
        if len(self._history) > 16:
            del self._history[:-16]
        self._last_move_t = max(self._last_move_t, when[0])
        if isinstance(move, Play):
            self._used.add((move.to, move.player, when[0]))
        if isinstance(move, Spit):
            self._spits.append((when[0], frozenset(extra.get("contact", ()))))
            del self._spits[:-4]
        for side, t in extra.get("contact", {}).items():
            self._used.update((pile, side, t) for pile in self._piles)
        if len(self._used) > 64:
            horizon = self._now[0] - self.config.touch_memory_s
            self._used = {used for used in self._used if used[2] >= horizon}
        ended = after.phase in ("settle", "layout", "over") and self._end_t is None
        if isinstance(move, Spit) and self._call is not None:  # the players confirm the stalemate
            call, self._call = self._call, None
            self._emit("spit_call", call)
        for kind, fields in transition_events(before, move, after):
            if kind == "spit_call":
                self._call = (self._last_move_t, when[1])
            elif kind == "game_end":
                if ended:
                    self._deal_ended(after, when)
                    ended = False
                self._emit(kind, when, **fields)
            elif kind != "deal_end":
                self._emit(kind, when, **fields, **extra)
        if ended:
            self._deal_ended(after, when)

    def _deal_ended(self, after: SpitState, when: When) -> None:
        ender = after.deal_ender()
        player, reason = ender if ender is not None else (self._players[0], "")
        self._end_t = when[0]
        self._changed_since_end = set()
        self._slaps = {}
        self._lifted.clear()
        self._refused.clear()
        self._pending_spit.clear()

        self._emit("deal_end", when, player=player, counts=after.counts(), reason=reason)

    # ------------------------------------------------------------------------------ reconciling

    def _clear(self, zone: str) -> bool:
        """`zone` has been settled (no hand over it, readable, no new state pending) since the last frame."""
        return self._now[0] - self._covered.get(zone, -1.0) > 0.5 * self.frame_interval

    def _reconcile(self) -> None:
        """Explain every zone that differs from the engine's position by a move, until none can be
        (at most `MOVES_PER_FRAME` moves: a card read in two places at once, as across a cut in the
        video, could otherwise be moved back and forth for ever)."""
        self._deferred = False
        progress = True
        steps = 0
        while progress and steps < MOVES_PER_FRAME:
            steps += 1
            phase = self.state.phase
            if phase == "layout":
                self._read_layout()
                if self.state.phase == "layout":
                    return
                continue
            if phase == "settle":
                if self.state.slap_due:
                    self._watch_slap()
                else:
                    self._choices()
                if self.state.phase == "settle":
                    return
                continue
            if phase == "over":
                return
            progress = False
            for zone in self._stock_zones:
                seen = self.readings.get(zone)
                if seen is not None and phase == "play" and seen != self._expected(zone):
                    progress = self._stock(zone, seen)
                    if progress:
                        break
            if progress:
                continue
            for pile in sorted(self._piles, key=self._shows_spit_card):  # stock cards first: a spit card is judged after them
                seen = self.readings.get(pile)
                if seen is not None and seen != self._expected(pile) and seen != EMPTY:
                    progress = self._pile(pile, seen)
                    if progress:
                        break
        self._odd = self._unexplained() if self.state.phase == "play" else set()
        if self._odd:
            self._odd_since = min(self._odd_since, self._now[0])
        else:
            self._odd_since = math.inf

    def _shows_spit_card(self, pile: str) -> bool:
        """Spit pile `pile` shows a card that is no stock top (a spit card, or a card not read yet)."""
        seen = self.readings.get(pile)
        return seen not in CARD_CODES or self._stock_top_of(parse_card(seen)) is None

    def _unexplained(self) -> set[str]:
        """The settled zones that show what no move explains: not the engine's card, nor a stock
        place whose top is in a hand, nor a card flagged as illegal on a pile (unless it has lain
        there longer than `RESYNC_S`: a card refused is taken back), nor a spit card waiting for
        the other spit cards (unless it has lain there longer than `RESYNC_S` and `TAKE_BACK_S`: the
        other player may first take back a card refused)."""
        lifted_from = {lift.zone for lift in self._lifted.values()}
        odd = set()
        for zone, seen in self.readings.items():
            if seen == self._expected(zone) or zone in lifted_from:
                continue
            flag = self._flagged.get((zone, seen))
            if flag is not None and self._now[0] - flag[1] < RESYNC_S:
                continue
            pending = self._pending_spit.get(zone)
            if pending is not None and pending[0] == seen and self._now[0] - pending[1][0] < RESYNC_S + TAKE_BACK_S:
                continue
            if zone in self._owner and self.state.top(zone) is not None and seen == self._under(zone):
                continue
            odd.add(zone)
        return odd

    def _odd_stock(self) -> set[str]:
        """The stock places that show what no move explains (`_unexplained`), leaving out one still
        under a hand, or changed and not read yet, and not read since a move judged there took its
        card (its reading is the card that left it: the place is not read yet, not misread)."""
        return {zone for zone in self._unexplained() if zone in self._owner
                and ((self._clear(zone) and zone not in self._left_unread) or self._moved.get(zone, -1.0) <= self._seen[zone][0])}

    def _unread(self, zone: str) -> bool:
        """`zone` is a spit pile whose last read is older than the move judged there at a hand's
        touch less than `RESYNC_S` ago (the card laid is not read yet): not a read to go by."""
        moved = self._moved.get(zone, -1.0)
        return zone in self.rules.pile_index and moved > self._seen[zone][0] and self._now[0] - moved < RESYNC_S

    def _resync(self) -> None:
        """The table has shown what no move explains for `RESYNC_S`: the engine's position is read
        again from the table (the camera-state constructor: counts kept from the engine where
        the table agrees, visible tops as seen, the spit cards making up the deck)."""
        s = self.state
        r = self.rules
        if not any(self.readings.get(pile) in CARD_CODES for pile in self._piles):
            self._between_deals(sorted(self._odd))  # the spit piles gathered: the deal ended unseen
            return
        stocks: dict[str, list[tuple[int, str | None]]] = {}
        on_table = 0
        for i, player in enumerate(self._players):
            places: list[tuple[int, str | None]] = []
            for zone in r.stock_names[i]:
                seen = self.readings.get(zone, EMPTY)
                count = 0 if seen == EMPTY else max(len(s.pile(zone)), 1)
                places.append((count, seen if seen in CARD_CODES else None))
                on_table += count
            stocks[player] = places
        piles: dict[str, tuple[int, str]] = {}
        for pile in self._piles:
            seen = self.readings.get(pile, EMPTY)
            flag = self._flagged.get((pile, seen))
            if flag is not None and self._now[0] - flag[1] < TAKE_BACK_S:  # refused or doubted there just now,
                seen = next((card for card, _ in reversed(self._pile_reads.get(pile, [])[:-1])  # to be taken back:
                             if card != seen and card in CARD_CODES), seen)  # what it lies on
            if seen in CARD_CODES:
                piles[pile] = (max(len(s.pile(pile)), 1), seen)
                on_table += piles[pile][0]
        spit = {p: s.spit_count(p) for p in self._players}
        spare = r.total_cards - on_table - sum(spit.values())
        richest = max(self._players, key=lambda p: spit[p])
        spit[richest] = max(0, spit[richest] + spare)
        emptied = [p for p in self._players if not any(count for count, _ in stocks[p])]
        ender = emptied[0] if len(emptied) == 1 and not r.refilled_singles else None
        if not self._set_position(stocks, piles, spit, sorted(self._odd), ended_by=ender):
            return
        if ender is not None:
            self._deal_ended(self.state, self._emptied_at(ender))
        self._odd_since = math.inf
        self._lifted.clear()
        self._flagged.clear()
        self._refused.clear()
        self._unsure.clear()
        self._moved = dict.fromkeys(self._owner, self._now[0])

    def _emptied_at(self, player: str) -> When:
        """When `player`'s stock was emptied: their first contact with a spit pile after the last of
        their places was seen empty (the hand laying the last card), else when that place was."""
        gone = max((self._seen.get(zone, self._now) for zone in self.rules.stock_names[self.rules.player_index[player]]),
                   key=lambda when: when[0])
        laid = [touch for pile in self._piles for touch in self._touches.get(pile, ())
                if touch.contact and touch.side == player and touch.t >= gone[0]]
        first = min(laid, key=lambda touch: touch.t, default=None)
        return gone if first is None else (first.t, first.frame)

    def _between_deals(self, odd: list[str]) -> None:
        """The spit piles show no card while the engine has the deal in play: it ended unseen and the
        piles were gathered. The engine waits for the next layout, each player holding what it
        counts in their stock and spit cards and half the spit piles' cards (which player took
        which pile is not known: the layout's places and the spit cards laid later tell more).
        A layout already dealt (every stock place showing a face-up card) is read at once."""
        s = self.state
        held = {p: s.held_count(p) for p in self._players}
        gathered = self.rules.total_cards - sum(held.values())
        for k, p in enumerate(sorted(self._players, key=lambda p: held[p])):
            held[p] += gathered // len(self._players) + (k < gathered % len(self._players))
        try:
            self.state = SpitState.position(self.rules, {}, phase="layout",
                                            held={p: " ".join([FACE_DOWN] * n) for p, n in held.items()})
        except ImpossiblePosition:
            return
        self.resyncs += 1
        self._history.clear()
        self._emit("resync", self._now, stocks={}, piles={}, spit_cards={}, held=held, unexplained=odd)
        self._other_slap = self._spit_shift = None  # a slap too close to call before is of no help now
        self._end_t = self._now[0]
        fresh = all(self.readings.get(zone) in CARD_CODES for zone in self._owner)
        self._changed_since_end = set(self._owner) if fresh else set()
        self._slaps = {}
        self._lifted.clear()
        self._flagged.clear()
        self._refused.clear()
        self._pending_spit.clear()
        self._unsure.clear()
        self._odd_since = math.inf
        self._layout_due = self._now[0]

    def _set_position(self, stocks: dict[str, list[tuple[int, str | None]]], piles: dict[str, tuple[int, str]],
                      spit: dict[str, int], odd: list[str], *, ended_by: str | None = None, **extra: str) -> bool:
        """The engine's position set anew (camera-state constructor; `ended_by`: the player whose
        stock is empty, ending the deal), logged as a `resync` for a resume to replay; False
        (nothing changed) if it is not a position of the game."""
        r = self.rules
        try:
            state = SpitState.observed(r, stocks, spit, piles, ended_by=ended_by)  # type: ignore[arg-type]
        except ImpossiblePosition:
            return False
        if ended_by is not None:
            extra["ended_by"] = ended_by
        self.state = state
        self._unread_tops.clear()
        self.resyncs += 1
        self._resynced_at = self._now[0]
        self._history.clear()  # the positions before it are of another reading of the table
        self._emit("resync", self._now,
                   stocks={zone: [count, top] for i, player in enumerate(self._players)
                           for zone, (count, top) in zip(r.stock_names[i], stocks[player])},
                   piles={pile: [count, top] for pile, (count, top) in piles.items()},
                   spit_cards=spit, counts=state.counts(), unexplained=odd, **extra)
        self._counts_known = False
        return True

    def _stock(self, zone: str, seen: str) -> bool:
        s = self.state
        owner = self._owner[zone]
        top = s.top(zone)
        when = self._when(zone, owner, self._seen[zone])
        if top is not None and seen == self._under(zone):
            if top.code not in self._lifted and self._read_back.get(top.code, -math.inf) < self._seen[zone][0]:
                # it left at any time since the place was last read showing it (an arm reaching past
                # a place hides it long before and after the hand takes its card)
                came = self._hand_came(zone, owner, when[0])
                gone = max(self._shown_until.get(zone, came), self._seen[zone][0] - TOUCH_REACH_S)
                if self._turned_away(owner, came):
                    gone = came  # its hand may hold a card turned unseen too: its touches are that card's
                self._lifted[top.code] = _Lift(owner, zone, min(came, gone))
            return False
        if not self._counts_known and seen in (EMPTY, FACE_DOWN) and self._recounted(zone, seen):
            return True
        if seen not in CARD_CODES:
            return False
        card = parse_card(seen)
        expected = self._expected(zone)
        if expected == FACE_DOWN and zone in self._unread_tops:
            self._unread_tops.discard(zone)
            since = self._moved.get(zone, 0.0)
            if not any(t.contact and t.side == owner and t.t > since for t in self._touches.get(zone, ())):
                self.state = s.apply(TurnUp(owner, zone, card))  # dealt face up, read only now: no one turned it
                return True
        if expected == FACE_DOWN:
            return self._turned(owner, zone, card, when)
        source = self._stock_top_of(card)
        if expected != EMPTY and any(lift.zone == zone for lift in self._lifted.values()):
            return False  # its top is still in a hand: what lies there now waits for that card to land
        if source is not None and source[1] != zone and self.readings.get(source[1]) == seen:
            return False  # read in two places at once: it has not left the one it still shows in
        if source is not None and source[0] == owner and source[1] != zone:
            if expected == EMPTY:
                return self._try(MoveToSpace(owner, card, source[1], zone), when)
            move = StackEqual(owner, card, source[1], zone)
            reason = s.check(move)
            if reason is None:
                self._apply(move, when)
                self._lifted.pop(card.code, None)
                return True
            if (zone, seen) not in self._flagged:
                self._flagged[zone, seen] = (owner, when[0])
                self._emit("illegal_play", when, player=owner, card=seen, to=zone, reason=reason,
                           **{"from": source[1]})
            return False
        if source is None and not s.cards()[card]:
            turned = self._turned_unseen(owner, when[0])
            if turned is not None and self._try(TurnUp(owner, turned[0], card), turned[1]):
                if expected == EMPTY:
                    self._try(MoveToSpace(owner, card, turned[0], zone), when)
                return True
            if self._deferred:
                return False
            if expected == EMPTY and self.rules.refilled_singles:
                return self._try(Refill(owner, zone, card), when)
        return False

    def _recounted(self, zone: str, seen: str) -> bool:
        """On counts guessed by a re-read, a stock place showing nothing under its top (lifted, or
        played from it and not seen face down since the move before put that card face up there)
        where the engine has face-down cards, or a face-down card where the engine has none after a
        card was played from it, had as many cards as the table shows: the cards counted there, or
        missing, are its player's spit cards (the other's when they have none). A stock so emptied
        ends the deal, dated by the move that took its last card."""
        s = self.state
        owner = self._owner[zone]
        count = len(s.pile(zone))
        here = [(when, move) for when, move in self._made
                if zone in (getattr(move, "source", None), getattr(move, "to", None), getattr(move, "pile", None))]
        last = here[-1] if here else None
        took = last is not None and getattr(last[1], "source", None) == zone
        shown = here[-2][0] if len(here) > 1 else -math.inf  # since the card taken was put face up there
        if seen == EMPTY and s.top(zone) is not None and count > 1 and s.face_up(zone) == 1:
            count = 1  # its top is in a hand, nothing under it
        elif seen == EMPTY and s.top(zone) is None and count and took and self._face_down_seen.get(zone, -1.0) < shown:
            count = 0  # never seen face down since: not a card turned and taken unseen
        elif seen == FACE_DOWN and not count and took:
            count = 1
        else:
            return False
        spit = {p: s.spit_count(p) for p in self._players}
        giver = owner if spit[owner] or count < len(s.pile(zone)) else max(self._players, key=lambda p: spit[p])
        spit[giver] += len(s.pile(zone)) - count
        if spit[giver] < 0:
            return False
        stocks = {p: [(count if name == zone else len(s.pile(name)),
                       getattr(s.top(name), "code", None) if count or name != zone else None) for name in names]
                  for p, names in zip(self._players, self.rules.stock_names)}
        piles = {pile: (len(s.pile(pile)), self._expected_in(s, pile)) for pile in self._piles if s.pile(pile)}
        ender = owner if not any(n for n, _ in stocks[owner]) and not self.rules.refilled_singles else None
        if not self._set_position(stocks, piles, spit, [zone], ended_by=ender, reason=RECOUNT):
            return False
        if ender is not None and last is not None:
            self._deal_ended(self.state, (last[0], self._frame_at(last[0])))
        return True

    def _frame_at(self, t: float) -> int:
        """The index of the frame of capture time `t`, from a touch remembered then (else the current one)."""
        return next((touch.frame for touches in self._touches.values() for touch in touches if touch.t == t), self._now[1])

    def _turned(self, player: str, zone: str, card: Card, when: When) -> bool:
        """A face-down top seen face up: turned at the player's first touch since the last move
        there; if their hand touched a spit pile between that and their last touch on the place,
        the card went there and came back (judged as a play once that pile has settled)."""
        since = self._moved.get(zone, 0.0)
        touches = [t for t in self._touches.get(zone, ()) if t.contact and t.side == player and since < t.t <= when[0]]
        turned = self._arrival(zone, touches[0], since) if touches else when
        if len(touches) > 1 and self._turned_before(player, zone, touches):
            return True
        if not self._try(TurnUp(player, zone, card), turned):
            return False
        for pile in self._piles:
            for touch in self._touches.get(pile, ()):
                if touch.contact and touch.side == player and turned[0] < touch.t < when[0]:
                    self._returns.append((card, _Lift(player, zone, turned[0]), pile, (touch.t, touch.frame)))
                    return True
        return True

    def _arrival(self, zone: str, contact: Touch, since: float) -> When:
        """When the hand that made `contact` came over `zone`: a hand turning a card over is not at
        rest (the card moves under it) until the card lies turned, so the turn is dated by the
        start of the stretch the place was under a hand, if that began `TURN_MIN_S` to `TURN_S` before."""
        for first, last in reversed(self._unsettled_runs.get(zone, ())):
            if first <= contact.t <= last + self.frame_interval:
                if since < first and TURN_MIN_S <= contact.t - first <= TURN_S:
                    return first, contact.frame - round((contact.t - first) / self.frame_interval)
                break
        return contact.t, contact.frame

    def _turned_before(self, player: str, zone: str, touches: list[Touch]) -> bool:
        """Between the player's touches on a face-down place, their hand laid an unknown card on a
        spit pile: that card was turned there first and played (the card now seen turned after)."""
        for pile in self._piles:
            shown = self.readings.get(pile)
            if shown not in CARD_CODES or shown == self._expected(pile) or self.state.cards()[parse_card(shown)]:
                continue
            laid = [t for t in self._touches.get(pile, ()) if t.contact and t.side == player
                    and touches[0].t < t.t < touches[-1].t]
            if not laid:
                continue
            first = parse_card(shown)
            if self._try(TurnUp(player, zone, first), self._arrival(zone, touches[0], self._moved.get(zone, 0.0))):
                self._attempt(player, first, zone, pile, (laid[0].t, laid[0].frame), visible=True)
                return True
        return False

    def _only_face_down(self, player: str, card: Card, pile: str, laid: When) -> tuple[str, When] | None:
        """The one face-down stock top of `player`, whose hand laid the unknown `card` on `pile` at
        `laid`, if `card` turned up there could be played on `pile`: a card turned and played with
        the hand unseen over its place (dated by the laying touch), not a spit card."""
        s = self.state
        hidden = [zone for zone in self.rules.stock_names[self.rules.player_index[player]]
                  if s.pile(zone) and not s.face_up(zone)]
        if len(hidden) != 1 or not self._clear(hidden[0]):
            return None
        move = TurnUp(player, hidden[0], card)
        if s.check(move) is not None or s.apply(move).check(Play(player, card, hidden[0], pile)) is not None:
            return None
        return hidden[0], laid

    def _fits(self, player: str, zone: str, card: Card, pile: str) -> bool:
        """`card`, turned up on `player`'s face-down top `zone`, can be played on `pile`."""
        move = TurnUp(player, zone, card)
        return self.state.check(move) is None and self.state.apply(move).check(Play(player, card, zone, pile)) is None

    def _turned_unseen(self, player: str, before: float, *, covered: bool = False) -> tuple[str, When] | None:
        """A face-down stock top of `player` their hand touched (since the last move there)
        before `before` (with `covered`, one it was only seen over: the hand finder may miss the
        contact of a hand turning a card): a card turned up and taken away before it could be
        read. The zone and the first such touch, for the zone touched last; None (and the
        referee waits) while such a place is not settled."""
        best: tuple[str, When] | None = None
        latest = -1.0
        s = self.state
        for zone in self.rules.stock_names[self.rules.player_index[player]]:
            if not s.pile(zone) or s.face_up(zone):
                continue
            if not self._clear(zone):
                self._deferred = True  # the card may still show there once the hand has gone
                return None
            since = self._moved.get(zone, 0.0)
            touched = [t for t in self._touches.get(zone, ())
                       if (t.contact or covered) and t.side == player and since < t.t < before]
            if touched and touched[-1].t > latest:
                latest = touched[-1].t
                best = (zone, self._arrival(zone, touched[0], since))
        return best

    def _try(self, move: SpitMove, when: When) -> bool:
        """Apply `move` if the engine finds it legal (else it is no explanation of what is seen)."""
        if self.state.check(move) is not None:
            return False
        card = getattr(move, "card", None)
        if card is not None:
            self._settle_lift(card, when)
        self._apply(move, when)
        return True

    def _settle_lift(self, card: Card, when: When) -> None:
        """`card` lands at `when`: if its player's hand touched a spit pile with it before (and
        it came back unseen), that touch is judged too."""
        lift = self._lifted.pop(card.code, None)
        if lift is None or lift.attempted:
            return
        for pile in self._piles:
            for touch in self._touches.get(pile, ()):
                if self._free(pile, touch, lift.player) and lift.t <= touch.t < when[0] \
                        and not self._taking_back(pile, touch):
                    self._returns.append((card, lift, pile, (touch.t, touch.frame)))
                    return

    def _pile(self, pile: str, seen: str) -> bool:
        if seen not in CARD_CODES:
            return False
        card = parse_card(seen)
        if (pile, seen) in self._flagged and (pile, seen) not in self._unsure:
            return self._relaid(pile, card)
        source = self._stock_top_of(card)
        first_seen = self._seen[pile]
        if source is not None:
            player, zone = source
            if pile in self._pending_spit and self._spat_alone():
                return True
            when = self._when(pile, player, first_seen)
            if self._contact_at(pile, player, when[0]) or any(
                    when[0] < t < first_seen[0] for _, t in self._pile_reads.get(pile, ())[:-1]):
                applied = self._earlier(pile, card, when)
            else:  # only its hand over the pile was seen, and nothing read there since: a card whose touch was seen before it showed lies under it
                applied = self._earlier(pile, card, when, until=first_seen[0])
                under = [t for t, side in self._landed.get(pile, ()) if side != player and t >= when[0]]
                if applied and under:
                    when = self._after(max(under), when)
            partners = self._tied(pile, player, when) - {self._shown.get(pile)}
            if partners:
                since = self._ties.setdefault(pile, self._now[0])
                if self._now[0] - since < TIE_WAIT_S:
                    self._shown[pile] = seen
                    return applied
                applied |= self._earlier(pile, card, when, tied=True)
            elif self._rival_touch(pile, player, when[0]):
                since = self._ties.setdefault(pile, self._now[0])
                if self._now[0] - since < TIE_WAIT_S:
                    return applied
            self._ties.pop(pile, None)
            self._shown.pop(pile, None)
            return self._attempt(player, card, zone, pile, when, visible=True) or applied
        if self.state.cards()[card]:
            return False  # a card the engine knows to lie elsewhere: a misreading
        last = self._last_touch(pile, first_seen)
        if self._earlier(pile, card, last[1] if last is not None else first_seen):
            return True
        stalemate = self.state.is_stalemate()
        if last is not None and not self.state.spit_count(last[0]) \
                and self._spit_shift is not None and self._spit_shift[last[0]] > 0:
            stalemate = self._unspit_alone(first_seen[0]) or stalemate
            if stalemate:
                self._slap_went_the_other_way()
        elif last is not None and not self.state.spit_count(last[0]) and last[1][0] >= first_seen[0] - TOUCH_REACH_S \
                and not self._rival_touch(pile, last[0], last[1][0]):
            stalemate = self._spit_card_of(last[0], last[1]) or stalemate
        if not stalemate:  # a stock card turned up and laid unseen: the last hand there's, else anyone's
            for covered in (False, True):  # a hand seen touching a face-down top first, then one seen over it
                for player in sorted(self._players, key=lambda p: last is None or p != last[0]):
                    if last is not None and player != last[0] and not self._hand_seen(pile, player, first_seen[0]):
                        continue  # another player's hand was seen there last, and this one's not at all
                    # dated by this player's hand on the pile (over it, if no contact was seen) before it was seen
                    laid = last[1] if last is not None and player == last[0] else self._when(pile, player, first_seen)
                    if (pile, player, laid[0]) in self._used:
                        laid = first_seen  # that touch laid a card judged already
                    turned = self._turned_unseen(player, laid[0], covered=covered)
                    if self._deferred:
                        return False
                    if turned is None and not covered and last is not None and player == last[0]:
                        turned = self._only_face_down(player, card, pile, laid)
                    if turned is not None and (covered or laid == first_seen) \
                            and not self._fits(player, turned[0], card, pile):
                        continue  # only seen over the place, or no touch seen laying it: turned there if it plays where it lies
                    if turned is not None and self._try(TurnUp(player, turned[0], card), turned[1]):
                        self._attempt(player, card, turned[0], pile, laid, visible=True)
                        return True
        if self._ties or self._returns:
            self._deferred = True
            return False  # a card that touched a pile is not judged yet: the engine's position is not the table's
        if stalemate:
            last = self._last_touch(pile, first_seen, {p for p in self._players if self.state.spit_count(p)})
        if last is None or last[1][0] < first_seen[0] - TOUCH_REACH_S:  # no contact seen: the hand seen over it
            last = self._last_cover(pile, first_seen, {p for p in self._players if self.state.spit_count(p)}
                                    if stalemate else None)
        side, when = last if last is not None else (self._starter[pile], first_seen)
        landed = self._landed_on(when[0], side)
        if landed.phase != "play":
            landed = self.state
        if landed.is_stalemate():
            if stalemate:
                self._pending_spit[pile] = (seen, when, side)
                return self._spit()
            self._flagged[pile, seen] = (side, when[0])  # laid at a stalemate that a later spit ended: no call
            return False
        try:
            landed.apply(Spit(((pile, card),)))
        except PrematureSpit as exc:
            self._flagged[pile, seen] = (side, when[0])  # the hand that comes for it takes it back
            if self._turned_around(side, when[0]):
                return False  # it may be the card turned before it was laid, not a spit card
            if not self._sure_of(exc.move, when[0], (pile, card, side)):
                self._unsure.add((pile, seen))
                self._doubted[pile, seen] = (side, when, exc.with_traceback(None))  # not the frames it was raised through
                self._deferred = True  # what the move needs may have changed unseen: wait for the table
                return False
            self._unsure.discard((pile, seen))
            self._doubted.pop((pile, seen), None)
            self._emit("premature_spit", when, player=side, move=exc.move.describe(), reason=str(exc))
            return False
        except IllegalMove:
            pass
        self._flagged[pile, seen] = (side, when[0])
        return False

    def _alone_by_the_other_slap(self) -> bool:
        """Only spit cards of one player lie waiting, for `SPIT_ROUND_S`, and the other, who has
        spit cards as the engine counts them, would have none after the other verdict of a slap
        too close to call."""
        shift = self._spit_shift
        laid = {side for _, when, side in self._pending_spit.values()}
        if shift is None or len(laid) != 1 or min(when[0] for _, when, _ in self._pending_spit.values()) \
                > self._now[0] - SPIT_ROUND_S:
            return False
        s = self.state
        return all(s.spit_count(p) > 0 and s.spit_count(p) + shift[p] == 0 for p in self._players if p not in laid)

    def _unspit_alone(self, t: float) -> bool:
        """The last move was a player spitting alone less than `SPIT_ROUND_S` before `t`, when a spit
        card of the other player touched: it is taken back (its card waits again), the position
        is the stalemate before it."""
        solo = self._solo
        if solo is None or not self._history or next(iter(solo.values()))[1][0] <= t - SPIT_ROUND_S:
            return False
        self.state = self._history.pop()[1]
        self._made.pop()
        self._spits.pop()
        self._pending_spit.update(solo)
        self._solo = None
        return True

    def _slap_went_the_other_way(self) -> None:
        """The layout read could have come from the other verdict of a slap too close to call, and
        the spit cards laid say it did (a player out of them as the engine counts lays one, or one
        who would be out lets the other spit alone): each player's spit cards are counted as that
        slap left them, logged as a `resync` of the engine's position with those counts."""
        shift, self._spit_shift = self._spit_shift, None
        if shift is None:
            return
        self._respit({p: self.state.spit_count(p) + shift[p] for p in self._players}, OTHER_SLAP)

    def _respit(self, spit: dict[str, int], reason: str) -> bool:
        """The engine's position with each player holding `spit` spit cards, logged as a `resync`
        with `reason`; False if that is no position of the game."""
        s = self.state
        stocks = {p: [(len(s.pile(zone)), getattr(s.top(zone), "code", None)) for zone in names]
                  for p, names in zip(self._players, self.rules.stock_names)}
        piles = {pile: (len(s.pile(pile)), self._expected_in(s, pile)) for pile in self._piles if s.pile(pile)}
        return self._set_position(stocks, piles, spit, [], reason=reason)

    def _spit_card_of(self, player: str, laid: When) -> bool:
        """`player`, out of spit cards as the engine counts them, laid one at `laid` (their hand the
        only one on the pile then): they hold at least one, counted from the other player's (a solo
        spit of the other less than `SPIT_ROUND_S` before is taken back: both spit). True when the
        engine's position now has the stalemate at which they spit."""
        if not self.state.is_active(player):
            return False
        if self._solo is not None and next(iter(self._solo.values()))[2] != player:
            self._unspit_alone(laid[0])
        s = self.state
        others = [p for p in self._players if p != player and s.spit_count(p)]
        if not others or not s.is_stalemate():
            return False
        giver = max(others, key=s.spit_count)
        spit = {p: s.spit_count(p) for p in self._players}
        spit[giver] -= 1
        spit[player] += 1
        self._spit_shift = None  # counted as the spit cards laid show, whatever a slap too close to call left
        return self._respit(spit, SPIT_LAID)

    def _spat_alone(self) -> bool:
        """The spit cards of only one player lie waiting on a stalemate and a stock card has been laid
        since (play goes on): the other players hold no spit cards, theirs as counted are the
        spitter's, and the spit is applied. True when it was."""
        laid = {side for _, _, side in self._pending_spit.values()}
        s = self.state
        if len(laid) != 1 or not s.is_stalemate():
            return False
        (spitter,) = laid
        spit = dict.fromkeys(self._players, 0)
        spit[spitter] = sum(s.spit_count(p) for p in self._players)
        if spit == {p: s.spit_count(p) for p in self._players}:
            return False
        self._spit_shift = None  # counted as the spit cards laid show, whatever a slap too close to call left
        return self._respit(spit, ALONE) and self._spit()

    def _relaid(self, pile: str, card: Card) -> bool:
        """A spit card called premature, or refused, still read on `pile` once nobody can move:
        if its player's hand has touched the pile since, the card was taken back and laid again
        (too quickly to be read off the pile): their spit card, dated by that touch."""
        key = (pile, card.code)
        side, since = self._flagged[key]
        s = self.state
        if s.phase != "play" or s.cards()[card] or not s.spit_count(side) or not s.is_stalemate():
            return False
        touches = [t for t in self._touches.get(pile, ()) if t.contact and t.side == side and t.t > since]
        if not touches:
            return False
        del self._flagged[key]
        self._pending_spit[pile] = (card.code, (touches[-1].t, touches[-1].frame), side)
        return self._spit()

    def _settle_doubts(self) -> None:
        """A spit card laid while the move the engine found was not sure, and taken back: called
        premature once that move is made (it existed): a play, or a turn-up dated by its player's
        first touch on the place since the move before it there, later than the spit card (the
        card lay face down until then); forgotten after `DOUBT_S`."""
        for key, (side, when, exc) in list(self._doubted.items()):
            if key in self._unsure and key in self._flagged and self.readings.get(key[0]) == key[1]:
                continue  # still lying there: judged where it lies
            if self._now[0] - when[0] > DOUBT_S or self.state.phase != "play":
                del self._doubted[key]
            elif (isinstance(exc.move, Play) and self._played_since(exc.move, when[0])) \
                    or (isinstance(exc.move, TurnUp) and self._turned_after(exc.move, when[0])):
                del self._doubted[key]
                self._emit("premature_spit", when, player=side, move=exc.move.describe(), reason=str(exc))

    def _played_since(self, move: Play, t: float) -> bool:
        """The play `move` was made at `t` (within a frame) or later."""
        return any(when >= t - self.frame_interval and self._same(move, made) for when, made in self._made)

    def _turned_around(self, player: str, t: float) -> bool:
        """A turn-up of `player`, dated by their touch before `t`, whose card still lies in its
        place and was touched by their hand again after `t`: the card read there may have been
        turned at that later touch, and the card turned first laid on a spit pile at `t`."""
        for when, made in self._made:
            if isinstance(made, TurnUp) and made.player == player and when < t and made.card is not None \
                    and self.readings.get(made.pile) == made.card.code and any(
                        touch.contact and touch.side == player and touch.t > t
                        for touch in self._touches.get(made.pile, ())):
                return True
        return False

    def _turned_after(self, move: TurnUp, t: float) -> bool:
        """The turn-up `move` was made, dated more than `SPIT_LEAD_S` after `t` by a touch of its
        player's hand seen on the place (its first since the move before it there: the card lay
        face down at `t`)."""
        for when, made in self._made:
            if when > t + SPIT_LEAD_S and self._same(move, made):
                return any(touch.contact and touch.side == move.player and when <= touch.t <= when + TURN_S
                           for touch in self._touches.get(move.pile, ()))
        return False

    def _sure_of(self, move: SpitMove, t: float, spit: tuple[str, Card, str]) -> bool:
        """The move the engine finds at `t`, when `spit` (pile, card, player) was laid, existed: a
        play made since, or it rests on what the camera sees (the places it uses were settled then,
        or, a spit pile, showed the engine's top when last read before `t`, with no hand laying an
        unjudged card there since; no stock place shows what no move explains; and a move into a
        space, which counts only when it uncovers a face-down card, is not judged on counts
        guessed by a re-read)."""
        if isinstance(move, Play) and self._played_since(move, t):
            return True  # the play was made since: it existed
        if self._resynced_at > t - RESYNC_S:
            return False  # the position was just read again from the table: what it guessed may be wrong
        if isinstance(move, MoveToSpace) and not self._counts_known:
            return False
        if isinstance(move, (Play, MoveToSpace, StackEqual)):
            needs = (move.source, move.card.code)
        else:
            needs = (move.pile, FACE_DOWN if isinstance(move, TurnUp) else EMPTY)
        if self.readings.get(needs[0]) != needs[1]:
            return False  # the place the move needs is not read as the engine has it (its card may be in a hand)
        zones = {getattr(move, name) for name in ("source", "to", "pile") if isinstance(getattr(move, name, None), str)}
        pile, card, side = spit
        return all(self._settled_at(zone, t) or (
            zone in self.rules.pile_index and self._read_under(zone, card, side, t, exact=True)) for zone in zones) \
            and not (self._unexplained() - set(self._piles))

    @staticmethod
    def _same(named: SpitMove, made: SpitMove) -> bool:
        """`made` is the move `named` (a turn-up named before its card was known matches it)."""
        if type(named) is not type(made):
            return False
        for name in ("player", "source", "to", "pile", "card"):
            a, b = getattr(named, name, None), getattr(made, name, None)
            if a != b and not (name == "card" and a is None):
                return False
        return True

    def _settled_at(self, zone: str, t: float) -> bool:
        """`zone` was settled (no hand over it, nothing unread) in the frames around `t`, or it
        shows what it showed before the stretch it was unsettled then, and has been settled for
        `SURE_S` since."""
        margin = 1.5 * self.frame_interval
        for first, last in self._unsettled_runs.get(zone, ()):
            if first - margin <= t <= last + margin:
                seen = self._seen.get(zone)
                return self._now[0] - self._covered.get(zone, -1.0) >= SURE_S and seen is not None and seen[0] < first
        return True

    def _earlier(self, pile: str, card: Card, when: When, *, tied: bool = False, until: float | None = None) -> bool:
        """Lifted cards (other than `card`) whose player's hand touched `pile` after lifting them
        and more than a frame before `when` (`_close`; with `tied`, within a frame either way
        too; with `until`, the time `card` was first seen on top there when its own touch was not
        seen, only its hand over the pile: any time before that): they touched the pile before
        `card` (and went under it, or were taken back), so they are judged first, in touch order;
        not a card seen there and taken back by its player (`_lifted_off`). True when one was applied."""
        limit = when[0] if until is None else max(when[0], until)
        found = []
        took = self._took_back.get(pile)
        for code, lift in self._lifted.items():
            if code == card.code or lift.attempted:
                continue
            for touch in self._touches.get(pile, ()):
                if self._free(pile, touch, lift.player) and lift.t <= touch.t \
                        and not self._taking_back(pile, touch) \
                        and (tied or until is not None or not self._close(touch.t, when[0])) \
                        and (touch.t < limit or self._close(touch.t, when[0])):
                    if took is None or (touch.side, touch.t) != took[:2]:
                        found.append(((touch.t, touch.frame), code, lift))
                    break
        applied = False
        for touched, code, lift in sorted(found, key=lambda item: item[0]):
            applied |= self._attempt(lift.player, parse_card(code), lift.zone, pile, touched, visible=False)
        return applied

    def _contact_at(self, zone: str, side: str, t: float) -> bool:
        """A contact of `side`'s hand with `zone` began at `t` (not only a hand seen over it)."""
        return any(touch.contact and touch.side == side and touch.t == t for touch in self._touches.get(zone, ()))

    def _after(self, t: float, when: When) -> When:
        """The frame after capture time `t`, dated from `when` (a card laid on one that touched at `t`)."""
        step = round((t - when[0]) / self.frame_interval) + 1
        return t + self.frame_interval, when[1] + step

    def _free(self, pile: str, touch: Touch, side: str) -> bool:
        """`touch` is a contact of `side`'s hand with `pile` that laid no card judged already."""
        return touch.contact and touch.side == side and (pile, side, touch.t) not in self._used

    def _touched_since(self, side: str, since: float, before: float) -> bool:
        """A hand of `side` touched a spit pile between `since` and `before` (its card went there)."""
        return any(t.contact and t.side == side and since <= t.t < before
                   for pile in self._piles for t in self._touches.get(pile, ()))

    def _taking_back(self, pile: str, touch: Touch) -> bool:
        """`touch` is its hand taking back a card of its own flagged on `pile` (lying there, or
        gone from there by the time the pile was next read), or refused there and not yet seen back
        in its place (within `TAKE_BACK_S`: the touches until it was seen back)."""
        for (p, _), (side, since) in self._flagged.items():
            if p == pile and side == touch.side and since < touch.t:
                return True
        for _, side, p, since, back in self._refused:
            if p == pile and side == touch.side and since < touch.t <= min(back, since + TAKE_BACK_S):
                return True
        took = self._took_back.get(pile)
        return took is not None and took[0] == touch.side and took[1] < touch.t <= took[2]

    def _laid(self, touches: tuple[Touch, ...]) -> bool:
        """A hand that lifted a stock card touches a spit pile: the card counts the moment it
        touches, so it is judged at once, before it can be seen (unless the player has two
        cards lifted, already touched a pile with it, another player's card touched the same pile
        within a frame of it (`_tied`), another player's hand touched it just before with no card
        judged, or the card would end the deal)."""
        moved = False
        for touch in touches:
            if not (touch.contact and touch.zone in self.rules.pile_index):
                continue
            for code, lift in list(self._lifted.items()):
                again = self._lifted_again(code, lift, touch) if lift.attempted and lift.player == touch.side else None
                if again is not None:  # back in its place at that touch: its player's touches lay it again
                    self._lifted[code] = _Lift(lift.player, lift.zone, again)
                    self._refused = [(*item[:4], min(item[4], again)) if item[0] == code else item
                                     for item in self._refused]
            mine = [(code, lift) for code, lift in self._lifted.items()
                    if lift.player == touch.side and not lift.attempted and lift.t <= touch.t]
            rivals = [t for t in touches if t.contact and t.zone == touch.zone and t.side != touch.side]
            taking_back = self._taking_back(touch.zone, touch) or (bool(mine) and self.readings.get(touch.zone) == mine[0][0])
            when = (touch.t, touch.frame)
            if len(mine) != 1 or rivals or taking_back or self._touched_since(touch.side, mine[0][1].t, touch.t) \
                    or self._rival_touch(touch.zone, touch.side, touch.t) or self._tied(touch.zone, touch.side, when):
                continue  # a hand on a card of its own already seen there, or flagged there, takes it back
            code, lift = mine[0]
            card = parse_card(code)
            if len([z for z in self.rules.stock_names[self.rules.player_index[lift.player]] if self.state.pile(z)]) == 1 \
                    and len(self.state.pile(lift.zone)) == 1:
                if self.state.check(Play(lift.player, card, lift.zone, touch.zone)) is None:
                    self._last_laid.append((card, lift, touch.zone, when))
                continue  # the player's last stock card ends the deal: called once the table is read
            moved |= self._earlier(touch.zone, card, when)
            if self.state.check(Play(lift.player, card, lift.zone, touch.zone)) is not None:
                continue  # a refusal is called once the card is seen there, or seen back in its place
            moved |= self._attempt(lift.player, card, lift.zone, touch.zone, when, visible=True)
        return moved

    def _lay_last_cards(self) -> None:
        """A player's last stock card laid where it fits (`_last_laid`) is played at its touch once it
        has not come back for `TIE_WAIT_S` with its place still read empty and the pile not read since
        the touch (the hand that laid it may stay on the pile until both slap it, and the piles are
        gathered): the deal ends there. A card seen since, on the pile or back in its place, is
        judged as seen."""
        waiting = []
        for card, lift, pile, when in self._last_laid:
            if self._lifted.get(card.code) is not lift or lift.attempted or self.state.phase != "play" \
                    or self._seen[pile][0] > when[0] or self.readings.get(lift.zone) != EMPTY:
                continue
            if self._now[0] - when[0] < TIE_WAIT_S:
                waiting.append((card, lift, pile, when))
            elif self._attempt(lift.player, card, lift.zone, pile, when, visible=True):
                self._reconcile()
        self._last_laid = waiting

    def _lifted_again(self, code: str, lift: _Lift, touch: Touch) -> float | None:
        """A card judged refused (`lift` attempted) is back in its player's hand and lifted again, its
        hand touching a spit pile with it now (`touch`): it lies on no pile, is flagged nowhere, its
        place shows what lies under it, and the hand touched the place after its last contact with a
        spit pile (the card was taken back to it, too briefly to be read there, and picked up again).
        The time of that touch on the place, else None."""
        if code in (self.readings.get(pile) for pile in self._piles) or any(key[1] == code for key in self._flagged):
            return None
        top = self.state.top(lift.zone)
        if top is None or top.code != code or self.readings.get(lift.zone) != self._under(lift.zone):
            return None
        laid = [t.t for pile in self._piles for t in self._touches.get(pile, ())
                if t.contact and t.side == lift.player and lift.t < t.t < touch.t]
        picked = [t.t for t in self._touches.get(lift.zone, ())
                  if laid and t.contact and t.side == lift.player and max(laid) < t.t < touch.t]
        return picked[-1] if picked else None

    def _rival_touch(self, pile: str, player: str, t: float) -> bool:
        """Another player's hand was over `pile` less than the race window before `t` (or in the same
        frame) and laid no card judged yet: touching it while holding no card seen lifted (those are
        judged in touch order), or over it without a contact seen while holding one, or a card
        turned and taken unseen (`_turned_away`), and touching no other spit pile since; no other
        card than the one there now was read there since (its card was on top, and is gone). Its
        card may lie under `player`'s, so `player`'s card waits for it (at most `TIE_WAIT_S`)."""
        now = self.readings.get(pile)
        reads = self._pile_reads.get(pile, ())
        window = [touch for touch in self._touches.get(pile, ()) if touch.side != player
                  and t - self.config.race_window_s < touch.t <= t and (pile, touch.side, touch.t) not in self._used
                  and not self._taking_back(pile, touch)
                  and not any(when > touch.t and seen != now for seen, when in reads)]
        for touch in window:
            holding = any(lift.player == touch.side and not lift.attempted and lift.t <= touch.t
                          for lift in self._lifted.values()) or self._turned_away(touch.side, touch.t)
            if touch.contact and not any(lift.player == touch.side and lift.t <= touch.t
                                         for lift in self._lifted.values()):
                return True
            if holding and not any(other.contact and other.side == touch.side for other in window) \
                    and not any(other.contact and other.side == touch.side and other.t >= touch.t
                                for name in self._piles if name != pile for other in self._touches.get(name, ())):
                return True
        return False

    def _turned_away(self, player: str, t: float) -> bool:
        """`player`'s hand may hold at `t` a stock card turned up and taken before it could be read:
        their hand touched a face-down top of theirs since the last move there and before `t`, and
        the place has not been read showing a face-down top since (it shows another card, or none,
        or is still under a hand)."""
        s = self.state
        for zone in self.rules.stock_names[self.rules.player_index[player]]:
            if not s.pile(zone) or s.face_up(zone) or (self.readings.get(zone) == FACE_DOWN and self._clear(zone)):
                continue
            since = self._moved.get(zone, 0.0)
            if any(touch.contact and touch.side == player and since < touch.t < t
                   for touch in self._touches.get(zone, ())):
                return True
        return False

    def _tied(self, pile: str, player: str, when: When) -> set[str]:
        """Other players' lifted cards, not judged yet, that touched `pile` at `when` to within a
        frame (`_close`): which came first shows only later (a card seen on top and taken back was
        second; both staying: the one on top)."""
        tied = set()
        for code, lift in self._lifted.items():
            if lift.player != player and not lift.attempted:
                for touch in self._touches.get(pile, ()):
                    if touch.contact and touch.side == lift.player and lift.t <= touch.t \
                            and self._close(touch.t, when[0]):
                        tied.add(code)
        return tied

    @property
    def _tie_s(self) -> float:
        """Contacts less than this apart (1.5 frame intervals: dated one frame apart, not two) are
        within a frame of each other: a contact is dated to about a frame either way, so their
        order is not seen."""
        return 1.5 * self.frame_interval

    def _close(self, t0: float, t1: float) -> bool:
        """Two contacts within a frame of each other (`_tie_s`)."""
        return abs(t1 - t0) < self._tie_s

    def _attempt(self, player: str, card: Card, zone: str, pile: str, when: When, *, visible: bool,
                 legal_counts: bool = True) -> bool:
        """`player`'s `card` from `zone` touched `pile` at `when`: a race if another player's card
        landed there just before, then a play or an illegal play. True when the engine moved."""
        key = (player, card.code, when[0])
        if key in self._judged:
            return False
        move = Play(player, card, zone, pile)
        # taken back, so it was refused: on a card that touched within a frame of it and stayed
        # (it came second), else on the top before it (it came first)
        reason = (self.state if legal_counts else self._state_at(when[0] + self._tie_s)).check(move)
        first = False
        if reason is None and not legal_counts:
            reason = self._state_at(when[0], before=True).check(move)
            if reason is None:
                return False
            first = True
        self._judged.add(key)
        landed = [item for item in self._landed.get(pile, ()) if item[0] < when[0] or not first and (
            item[0] == when[0] or (not legal_counts and self._close(item[0], when[0])))]
        raced = landed[-1] if landed and landed[-1][1] != player and when[0] - landed[-1][0] < self.config.race_window_s \
            else None
        if reason is None:
            self._race(pile, raced, player, when)
            self._settle_lift(card, when)
            kept = self._landed.setdefault(pile, [])
            kept.append((when[0], player))
            kept.sort()
            del kept[:-8]
            self._apply(move, when)
            return True
        if not (self._hand_seen(pile, player, when[0]) or (visible and self._laid_in_view(pile, card, player, when[0]))) \
                or not self._read_under(pile, card, player, when[0]) or self._odd_stock():
            self._judged.discard(key)
            lift = self._lifted.get(card.code)
            if visible and lift is not None:
                lift.attempted = True  # seen there: no other touch is this card's
            return False  # the position the card is refused on was not read: no call against the player
        if not legal_counts and self._covered_since(pile, card, player, when[0]):
            return False  # another card was read there since and the player never reached back: it may lie under it
        lift = self._lifted.get(card.code)
        if lift is not None:
            lift.attempted = True
        if visible:
            if lift is None:
                self._lifted[card.code] = _Lift(player, zone, when[0], attempted=True)
            self._flagged[pile, card.code] = (player, when[0])
        if legal_counts:  # not yet back in its place: its player will come for it
            horizon = self._now[0] - self.config.touch_memory_s
            self._refused = [item for item in self._refused if item[3] >= horizon]
            self._refused.append((card.code, player, pile, when[0], math.inf))
        self._used.add((pile, player, when[0]))
        self._race(pile, raced, player, when)
        self._emit("illegal_play", when, player=player, card=card.code, to=pile, reason=reason, **{"from": zone})
        return False

    def _race(self, pile: str, raced: tuple[float, str] | None, player: str, when: When) -> None:
        """`player`'s card judged at `when` on `pile` came less than the race window after `raced`
        (time, player), another player's card laid there, or touched within a frame of it (`_close`)
        and was found first: a race (its margin the contacts' difference either way)."""
        if raced is not None:
            t0, first = raced
            self._emit("race", when, pile=pile, first=first, second=player,
                       margin_ms=round(abs(when[0] - t0) * 1000, 3), first_t=t0, second_t=when[0])

    @staticmethod
    def _expected_in(state: SpitState, pile: str) -> str:
        """What `state` has on top of spit pile `pile`."""
        top = state.top(pile)
        return EMPTY if top is None else top.code

    def _hand_seen(self, pile: str, player: str, t: float) -> bool:
        """A hand of `player` was seen over `pile` at most `TOUCH_REACH_S` before `t` (the card
        judged at `t` was seen being laid, not found there once the view cleared)."""
        return any(touch.side == player and t - TOUCH_REACH_S <= touch.t <= t for touch in self._touches.get(pile, ()))

    def _read_under(self, pile: str, card: Card, player: str, t: float, *, exact: bool = False) -> bool:
        """What the engine has under `player`'s `card` laid on `pile` at `t` is what the camera
        last saw there before it, or what the moves judged since then put there (no hand touched
        the pile meanwhile without a card judged): the position a refusal is judged on was read.
        Unless `exact`, another card read there than the engine's will do if the card would be
        refused on it too."""
        reads = [read for read in self._pile_reads.get(pile, ()) if read[0] != card.code and read[1] < t]
        if not reads:
            return False
        seen, since = reads[-1]
        if self._blind(since, t):
            return False  # the view was blocked: cards may have landed unseen
        # the engine's top there when it was seen (a move is dated by its touch, its card seen a little before or after)
        dates = {since} | {when for when, _ in self._history if since - TOUCH_REACH_S <= when < t}
        agrees = any(self._expected_in(self._state_at(date), pile) == seen for date in dates)
        for touch in self._touches.get(pile, ()):
            own = touch.side == player and card.code in self._lifted
            if touch.contact and since < touch.t < t and (pile, touch.side, touch.t) not in self._used \
                    and not self._taking_back(pile, touch) and not own:
                return False  # a card may lie there unseen
        if agrees or exact:
            return agrees
        if seen not in CARD_CODES:
            return False
        under = parse_card(seen)  # another card than the engine's: refused only if it would be refused on that too
        return not is_adjacent(card, under) or (self.rules.alternate_colours and card.red == under.red)

    def _laid_in_view(self, pile: str, card: Card, player: str, t: float) -> bool:
        """`player`'s `card`, seen on `pile` at `t` though their hand was not seen laying it, lies on
        what was last read there, as the engine has it, and no other hand came over the pile since
        without laying a card judged (none can have uncovered it by taking a card off it)."""
        if not self._read_under(pile, card, player, t, exact=True):
            return False
        since = max(when for seen, when in self._pile_reads.get(pile, ()) if seen != card.code and when < t)
        touches = self._touches.get(pile, ())
        visits = [touch for touch in touches if touch.side != player and since < touch.t < t]
        return not any((pile, touch.side, touch.t) not in self._used and (touch.contact or not any(
            other.contact and other.side == touch.side and abs(other.t - touch.t) <= self.config.race_window_s
            for other in touches)) for touch in visits)

    def _covered_since(self, pile: str, card: Card, player: str, t: float) -> bool:
        """`player`'s `card`, back in its place, was never read on `pile` after their touch there at
        `t`, another card than the engine's top at `t` was, and their hand did not touch the pile
        again: a card of theirs taken back unseen cannot be told from one that went under that
        card (turned and played unseen) and stayed."""
        top = self._laid_before(pile, t) or self._expected_in(self._state_at(t, before=True), pile)
        reads = [seen for seen, when in self._pile_reads.get(pile, ()) if when > t]
        if card.code in reads or all(seen == top for seen in reads):
            return False
        return not any(touch.contact and touch.side == player and touch.t > t for touch in self._touches.get(pile, ()))

    def _laid_before(self, pile: str, t: float) -> str | None:
        """The card of the latest remembered move dated before `t` that laid one on `pile` (moves
        are applied in the order they are found, not always in their dates' order)."""
        best: tuple[float, str] | None = None
        for when, move in self._made:
            card = move.card if isinstance(move, Play) and move.to == pile else \
                dict(move.cards).get(pile) if isinstance(move, Spit) else None
            if card is not None and when < t and (best is None or when >= best[0]):
                best = (when, card.code)
        return best[1] if best is not None else None

    def _blind(self, since: float, t: float) -> bool:
        """The whole view was blocked at some time between `since` and `t` (something over the
        table): cards may have landed unseen."""
        return any(end >= since and start <= t for start, end in self._blocked_runs)

    def _came_back(self, code: str, lift: _Lift, back: float) -> None:
        """A lifted card is back on its stock pile, first seen there at `back`: if its player's
        hand touched a spit pile meanwhile, the card touched it (and is judged there); else it was
        only picked up (a touch from `back` on is the hand's next card)."""
        for pile in self._piles:
            for touch in self._touches.get(pile, ()):
                if self._free(pile, touch, lift.player) and lift.t <= touch.t < back \
                        and not self._taking_back(pile, touch):
                    self._returns.append((parse_card(code), lift, pile, (touch.t, touch.frame)))
                    return

    def _judge_returns(self) -> None:
        """Cards taken back are judged once the pile they touched has been clear of hands long
        enough for the tracker to have settled what lies on it (a card laid just before may show)."""
        ready = [item for item in self._returns if self._clear(item[2])]
        if not ready:
            return
        self._returns = [item for item in self._returns if item not in ready]
        for card, lift, pile, when in ready:
            if self.state.phase == "play":
                self._earlier(pile, card, when)
            self._attempt(lift.player, card, lift.zone, pile, when, visible=False, legal_counts=False)

    def _spit(self) -> bool:
        """Every pile the engine expects a spit card on has one: the spit."""
        pending = self._pending_spit
        for option in self.state.table_moves():
            if not isinstance(option, Spit):
                continue
            piles = [pile for pile, _ in option.cards]
            if not all(pile in pending for pile in piles):
                continue
            move = Spit(tuple((pile, parse_card(pending[pile][0])) for pile in piles))
            if self.state.check(move) is not None:
                continue
            when = max((pending[pile][1] for pile in piles), key=lambda w: w[0])
            contact = {pending[pile][2]: pending[pile][1][0] for pile in piles}
            self._pending_spit = {}
            for pile in piles:  # a spit card doubted when it landed is judged now: no hand there takes it back
                key = (pile, pending[pile][0])
                self._flagged.pop(key, None)
                self._unsure.discard(key)
                self._doubted.pop(key, None)
            self._apply(move, when, contact=contact)
            self._solo = {pile: pending[pile] for pile in piles} if len(piles) == 1 else None
            return True
        return False

    # ------------------------------------------------------------------------------ deal ends

    def _watch_slap(self) -> None:
        """Both players' first contact with a spit pile after the deal ended decides the slap (a
        hand taking back a card flagged on the pile is not slapping)."""
        end = self._end_t if self._end_t is not None else 0.0
        for pile in self._piles:
            contacts = [touch for touch in self._touches.get(pile, ()) if touch.contact]
            flags = [(side, since, math.inf) for (p, _), (side, since) in self._flagged.items() if p == pile]
            if pile in self._took_back:
                flags.append(self._took_back[pile])
            skip: dict[str, float] = {}
            for side, since, gone in flags:
                after = [touch.t for touch in contacts if touch.side == side and since < touch.t <= min(gone, since + 2.0)]
                skip[side] = max(skip.get(side, 0.0), after[0] if after else since)
            for touch in contacts:
                if touch.t > max(end, skip.get(touch.side, 0.0)) and touch.side in self._players:
                    known = self._slaps.get(touch.side)
                    if known is None or touch.t < known[1][0]:
                        self._slaps[touch.side] = (pile, (touch.t, touch.frame))
        if len(self._slaps) < len(self._players):
            return
        (a, (pile_a, when_a)), (b, (pile_b, when_b)) = sorted(self._slaps.items())
        margin = round((when_b[0] - when_a[0]) * 1000, 3)
        extra: dict[str, Any] = {}
        ender = self.state.deal_ender()
        if pile_a == pile_b and abs(when_b[0] - when_a[0]) < 0.5 * self.frame_interval:
            winner = ender[0] if ender is not None else a
            t0 = min(when_a[0], when_b[0])
            move = Slap(((a, pile_a, t0), (b, pile_b, t0)), underneath=winner)
            extra = {"verdict": TOO_CLOSE, "fallback": SLAP_FALLBACK}
        else:
            winner = a if when_a[0] <= when_b[0] else b
            move = Slap(((a, pile_a, when_a[0]), (b, pile_b, when_b[0])))
        first_pile = pile_a if winner == a else pile_b
        later = max((when_a, when_b), key=lambda w: w[0])
        before = self.state
        self.state = after = before.apply(move)
        if extra:
            loser = b if winner == a else a
            other = before.apply(Slap(move.touches, underneath=loser))
            self._other_slap = {p: other.held_count(p) for p in self._players}
        self._emit("slap", later, pile=first_pile, contact={a: when_a[0], b: when_b[0]}, winner=winner,
                   margin_ms=abs(margin) if pile_a == pile_b else None, evidence="",
                   piles={a: pile_a, b: pile_b}, frames={a: when_a[1], b: when_b[1]}, **extra)
        if after.is_over():
            self._emit("game_end", later, winner=after.winner())

    def _choices(self) -> None:
        """Free choice: a spit pile lifted off the table by a player due to choose."""
        for pile in self._piles:
            if self.readings.get(pile) == EMPTY and self._expected(pile) != EMPTY:
                seen = self._seen[pile]
                last = self._last_touch(pile, seen)
                if last is not None:
                    move = ChoosePile(last[0], pile)
                    if self.state.check(move) is None:
                        self._apply(move, last[1])

    def _read_layout(self) -> None:
        """A new layout is complete when every stock place that gets cards shows a face-up card
        (each seen anew since the deal ended): the engine's camera-state constructor reads it.
        The cards each player holds come from the engine; if the places filled do not fit them
        (a slap too close to call went the other way) and the table has been still for
        `LAYOUT_STILL_S`, the nearest counts that fit are taken."""
        r = self.rules
        filled: dict[str, tuple[bool, ...]] = {}
        unread: set[str] = set()
        for i, player in enumerate(self._players):
            pattern = []
            for zone in r.stock_names[i]:
                seen = self.readings.get(zone)
                if seen in CARD_CODES:
                    if not (self._first_layout or zone in self._changed_since_end):
                        return
                    pattern.append(True)
                elif seen in (None, EMPTY):
                    pattern.append(False)
                    if seen is None:
                        unread.add(zone)
                else:
                    return
            filled[player] = tuple(pattern)
        dealt = self._dealt_unread(filled, unread)
        if dealt is None:
            unread = set()
        else:
            filled = dealt
        held = self._layout_holdings(filled)
        if held is None:
            return
        stocks: dict[str, list[tuple[int, str | None]]] = {}
        spit_cards = {}
        tops: dict[str, str] = {}
        latest: When = (0.0, 0)
        for i, player in enumerate(self._players):
            counts, spit_cards[player] = layout_counts(r.layout, held[player])
            stocks[player] = []
            for count, zone in zip(counts, r.stock_names[i]):
                top = self.readings.get(zone) if count else None
                stocks[player].append((count, top))
                if top is not None:
                    tops[zone] = top
                    latest = max(latest, self._when(zone, None, self._seen[zone]))
        try:
            self.state = SpitState.observed(r, stocks, spit_cards)
        except ImpossiblePosition:
            return
        other, self._other_slap = self._other_slap, None
        if other is None and self._spit_shift is not None:  # not settled last deal: the cards held still differ so
            other = {p: held[p] + self._spit_shift[p] for p in self._players}
        self._spit_shift = None
        if other is not None and other != held and all(  # the same piles dealt either way: only the spit cards differ
                0 <= other[p] <= r.total_cards and layout_counts(r.layout, other[p])[0] == layout_counts(r.layout, held[p])[0]
                for p in self._players):
            self._spit_shift = {p: layout_counts(r.layout, other[p])[1] - spit_cards[p] for p in self._players}
        self._first_layout = False
        self._unread_tops = unread
        self._end_t = None
        self._last_move_t = latest[0]
        self._moved = dict.fromkeys(self._owner, latest[0])
        self._landed.clear()
        self._history.clear()
        self._emit("layout", latest, counts=self.state.counts(), tops=tops)

    def _dealt_unread(self, filled: dict[str, tuple[bool, ...]], unread: set[str]) -> dict[str, tuple[bool, ...]] | None:
        """The places filled with those never read taken as dealt, if that gives every player the
        pattern of the cards the engine has them holding and the rest of the layout has lain still
        for `UNREAD_LAYOUT_S` (the reader had its tries); else None."""
        if not unread or self._now[0] - (self._layout_due - LAYOUT_STILL_S) < UNREAD_LAYOUT_S:
            return None
        names = self.rules.stock_names
        dealt = {p: tuple(f or z in unread for f, z in zip(filled[p], names[i])) for i, p in enumerate(self._players)}
        if any(self._patterns[self.state.held_count(p)] != dealt[p] for p in self._players):
            return None
        return dealt

    def _layout_holdings(self, filled: dict[str, tuple[bool, ...]]) -> dict[str, int] | None:
        """How many cards each player dealt, given which places show a card."""
        held = {p: self.state.held_count(p) for p in self._players}
        patterns = self._patterns
        if all(patterns[n] == filled[p] for p, n in held.items()):
            return held
        if self._now[0] < self._layout_due:
            return None
        self._layout_due = math.inf  # tried once the table is still; again after the next change
        total = sum(held.values())
        options = {p: [n for n in range(total + 1) if patterns[n] == filled[p]] for p in self._players}
        if not all(options.values()):
            return None
        guess = {p: min(options[p], key=lambda n: abs(n - held[p])) for p in self._players}
        for p in self._players:
            rest = total - sum(n for q, n in guess.items() if q != p)
            if rest in options[p]:
                guess[p] = rest
                return guess
        return None
