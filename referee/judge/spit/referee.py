"""The Spit referee's state and public class: snapshots fed in, zones reconciled with the engine, calls out."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from referee.cards import FACE_DOWN, Card, parse_card
from referee.errors import IllegalMove
from referee.events import Event
from referee.judge.spit.config import (
    CALLS_MEMORY_S,
    HANDS_KEPT_FRAMES,
    LAYOUT_STILL_S,
    MOVES_PER_FRAME,
    RESYNC_S,
    SPIT_LEAD_S,
    SPIT_ROUND_S,
    TOUCH_REACH_S,
    TURN_S,
    Lift,
    RefereeConfig,
    When,
    layout_counts,
    spit_rules,
)
from referee.judge.spit.deals import DealEnds
from referee.judge.spit.lifts import LiftedCards
from referee.judge.spit.moves import TableMoves
from referee.judge.spit.rereads import Rereads
from referee.judge.spit.spits import SpitCalls
from referee.judge.spit.touches import HandTouches
from referee.observations import CARD_CODES, EMPTY, HandSeen
from referee.rules.spit import (
    ImpossiblePosition,
    MoveToSpace,
    Play,
    PrematureSpit,
    Spit,
    SpitMove,
    SpitRules,
    SpitState,
    TurnUp,
    transition_events,
)
from referee.tracker import Snapshot, Touch, ZoneChange


class SpitReferee(TableMoves, LiftedCards, HandTouches, Rereads, SpitCalls, DealEnds):
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
        self._read_confidence: dict[str, float] = {}
        """Per zone, the reader's lowest confidence over the frames that settled its last change."""
        self._touches: dict[str, list[Touch]] = {}
        self._lifted: dict[str, Lift] = {}
        self._flagged: dict[tuple[str, str], tuple[str, float]] = {}
        self._took_back: dict[str, tuple[str, float, float]] = {}
        self._taken_off: dict[str, tuple[str, float, float]] = {}
        """Per spit pile, a card judged played there that its player took off to show the card under it
        (`_played_second`): (player, its touch, when the pile showed the card under it)."""
        self._unseen_laid: list[tuple[str, float]] = []
        """The last few touches never seen that laid a card found under another (`_laid_hidden`): (pile,
        the time it is dated to, a guess): a race it won has no margin to report."""
        self._refused: list[tuple[str, str, str, float, float]] = []
        """Cards refused on a spit pile: (card, player, pile, time refused, first seen back in a
        stock place or inf), kept for the touch memory."""
        self._judged: set[tuple[str, str, float]] = set()
        self._landed: dict[str, list[tuple[float, str]]] = {}
        self._history: list[tuple[float, SpitState]] = []
        self._pending_spit: dict[str, tuple[str, When, str]] = {}
        self._spat_early: dict[str, tuple[str, When, str]] = {}
        """Per spit pile, the last card the engine has nowhere laid there by a player holding spit cards
        while the engine still found a move (pile -> card, when, player): a spit card, if the move was
        turning up a card the camera had not read (`SpitCalls._spat_at_hidden_turn`)."""
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
        self._slaps: dict[str, tuple[str, When, tuple[str, ...]]] = {}
        """Each player's slap so far: pile, first contact, the sides whose hands lay over theirs."""
        self._hands_seen: deque[tuple[int, tuple[HandSeen, ...]]] = deque(maxlen=HANDS_KEPT_FRAMES)
        """The hands seen in the last frames (`Snapshot.hands`), with their frame numbers: a slap on one pile
        counts the `beneath` votes of the frames after its contacts, though its deal's end is judged later."""
        self._other_slap: dict[str, int] | None = None
        """After a slap too close to call: the cards each player would hold had it gone the other way."""
        self._solo: dict[str, tuple[str, When, str]] | None = None
        """The spit card of the last move, if it was a player spitting alone."""
        self._spit_shift: dict[str, int] | None = None
        """The layout read could have come from that other slap too: what it would add to each
        player's spit cards (the places dealt look the same); kept into later deals until the spit
        cards laid settle it."""
        self._stock_shift: dict[str, int] = {}
        """With `_spit_shift`: what that other slap would add to each stock place's cards (a player
        dealing fewer than a full layout)."""
        self._returns: list[tuple[Card, Lift, str, When]] = []
        self._held: dict[tuple[str, str], tuple[str, str, When, float]] = {}
        """Refusals of cards taken back held back while a stock place showed what no move explains
        (`TableMoves._judge_held`): (pile, card) -> (player, its place, its touch, when held)."""
        self._last_laid: list[tuple[Card, Lift, str, When]] = []
        """A player's last stock card, lifted, touching a spit pile where it fits: (card, its lift, the
        pile, the touch), judged once the table shows it (`_lay_last_cards`)."""
        self._ties: dict[str, float] = {}
        self._shown: dict[str, str] = {}
        self._moved: dict[str, float] = {}
        self._reread_from: dict[str, float] = {}
        """At the last re-read of the table (`Rereads._resync`, dated `_moved` at every stock place), the
        last clear read of each stock place then under a hand: the re-read took the place from it."""
        self._stock_read: set[str] = set()
        """The cards read in a stock place since the last layout was read: stock cards, never spit cards
        nor cards turned unseen (`TableMoves._pile`)."""
        self._face_down_seen: dict[str, float] = {}
        """Per stock place, when it was last seen showing a face-down top."""
        self._face_down_read: dict[str, float] = {}
        """Per stock place, the last frame it was read showing a face-down top, settled or not."""
        self._empty_runs: dict[str, list[list[float]]] = {}
        """Per stock place, the last 8 stretches [first, last frame time] it was read empty frame after
        frame, settled or not: a bound on memory (every empty frame of `touch_memory_s` outgrew the
        judge's record bound in long games); the rules ask only for the last stretch and those around a
        contact (`_emptied_unseen`, `_read_empty_around`)."""
        self._read_in_place: dict[str, tuple[float, str]] = {}
        """Per stock card, the last frame it was read in a stock place, settled or not, and that place."""
        self._read_turned_up: dict[str, tuple[str, When]] = {}
        """Per card the engine had nowhere, the last stock place whose top the engine had face down it was read
        in, settled or not (if only for a frame), and that frame: a card seen turned up there (`_seen_turned`)."""
        self._top_read: dict[str, float] = {}
        """Per spit pile, the last frame it was read showing the engine's top there, settled or not."""
        self._unknown_read: dict[str, tuple[str, float]] = {}
        """Per spit pile, the card read there (settled or not) that the engine had nowhere, while every
        read since shows it, and the earliest it may have been laid (the pile's last settled read before
        it): a spit card, if laid at a stalemate (`SpitCalls._spat_since`)."""
        self._waited: dict[str, str] = {}
        """Per face-down stock top not read yet, the card laid on a spit pile that waits for it to be
        read (`TableMoves._only_face_down`); forgotten once it is read clear."""
        self._turned_unread: set[str] = set()
        """Cards judged turned up and laid unseen, still lifted (refused), not read in their place since."""
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
        self._read_on_pile: dict[str, tuple[str, float]] = {}
        """Per stock card: the spit pile it was last read on (if only for a frame) and when."""
        self._made: list[tuple[float, SpitMove]] = []
        """The last moves applied, with their times."""
        self._doubted: dict[tuple[str, str], tuple[str, When, PrematureSpit]] = {}
        """Spit cards laid while a move may have existed: (pile, card) -> (player, time, the engine's objection)."""
        self._unsure: set[tuple[str, str]] = set()
        """Spit cards laid while a move may have existed, the move not (yet) sure: not called."""
        self._used: set[tuple[str, str, float]] = set()
        """(pile, side, t) of the contacts that laid a card already judged (a play, a spit card)."""
        self._deferred = False
        self._look_again = math.inf
        """When a wait bounded by time (`TURN_S`) that deferred a verdict runs out: the referee looks
        again then, though nothing on the table changed (`TableMoves._turn_unread`)."""
        self._hurried = False
        """A card about to be covered is being judged (`_covering`): no waiting for places to be read."""
        self._called_on: SpitState | None = None
        """The position a "Spit!" was called on from a turned card's first read (`_call_on_first_read`),
        before the engine reached it."""
        self._called_turns: tuple[tuple[TurnUp, When], ...] = ()
        """The turn-ups, each with its date, that first read made to reach `_called_on`."""
        self._called_read = -math.inf
        """When that first read was made."""
        self._flags_called: set[tuple[str, float, Any, Any, Any]] = set()
        """The calls against a player made so far (kind, time, player, card, move): none is made twice."""
        self._unsettled: frozenset[str] = frozenset()
        self._left_unread: frozenset[str] = frozenset()
        """The zones the last frame left unread (changed, not read yet)."""
        self._left_unread_at: dict[str, float] = {}
        """Per zone, the last frame that left it unread (it changed there, with or without a hand seen)."""
        self._read_now: frozenset[str] = frozenset()
        """The zones the last frame read (not under a hand), settled or not."""
        self._read_back: dict[str, float] = {}
        """Per stock top once thought lifted, the last frame it was read back in its place, not settled
        there (what the place settled on before, what lay under it, is stale since)."""
        self._read_clear: dict[str, float] = {}
        """Per zone, the last frame it was read with no hand over it and no new state pending."""
        self._shown_until: dict[str, float] = {}
        """Per stock place, the last frame it was read showing what it showed before its last change."""
        self._first_read: dict[str, tuple[str, float]] = {}
        """Per stock place, what it was last read showing, and the first frame of the reads showing that
        (settled or not, if only for a frame) since it was last read showing something else."""
        self._layout_due = math.inf
        self._unread_tops: set[str] = set()
        """Stock places of the last layout dealt with their tops not read yet (`UNREAD_LAYOUT_S`)."""
        self._odd_since: dict[str, float] = {}
        """Per zone showing what no move explains, since when it has (without a break)."""
        self._odd: set[str] = set()
        self._call: When | None = None
        self.resyncs = 0
        """How many times the engine's position was read again from the table."""
        self._resynced_at = -math.inf
        """When the engine's position was last read again from the table (`_set_position`)."""
        self._laid_seen: dict[tuple[str, str], tuple[str, str, When, float]] = {}
        """(spit pile, stock top read there) since the last re-read -> (its player, its place, that player's
        contact laying it, its first read there)."""
        self._glimpses: dict[str, list[tuple[str, When]]] = {}
        """Per spit pile, the cards read there (if only for a frame) since it last settled, other than
        the settled card, each with its first such read (`TableMoves._glimpsed_under`)."""
        self._glimpsed: dict[str, tuple[list[tuple[str, When]], float]] = {}
        """Per spit pile, the glimpses read there before its last settled change, and when the pile
        had settled before them (`TableMoves._glimpsed_under`)."""
        self._under_seen: Mapping[str, str] = {}
        """Per spit pile, the card settled under its settled top (`Snapshot.under`; `TableMoves._laid_under`)."""
        self._under_tops: dict[str, dict[tuple[str, str], float]] = {}
        """Per spit pile, the (top, card under it) pairs read settled there (`Snapshot.under`) within the
        touch memory, each with its last such read (`Rereads._played_second`)."""
        self._settled: Mapping[str, str] = {}
        """The tracker's settled reading of every zone in this frame (`Snapshot.zones`), the top that
        `_under_seen` lies under: ahead of `readings` while this frame's changes are judged one by one."""
        self._resync_plays: list[tuple[str, str, str, str, When, float]] = []
        """Plays found at a re-read, logged once the card has stayed (`_settle_resync_plays`)."""
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

    def update(self, snap: Snapshot) -> list[Event]:
        """Take one frame's snapshot; the calls it makes (often none)."""
        previous = self._now[0]
        self._now = (snap.t, snap.frame)
        self._out = []
        self._left_unread = snap.unread
        for zone in snap.unread:
            self._left_unread_at[zone] = snap.t
        self._read_now = frozenset(snap.read)
        self._hands_seen.append((snap.frame, snap.hands))
        self._under_seen = snap.under
        self._settled = snap.zones
        for pile, under in snap.under.items():
            if pile in self._piles and snap.zones.get(pile) is not None:
                pairs = self._under_tops.setdefault(pile, {})
                pairs[snap.zones[pile], under] = snap.t
                for pair in [pair for pair, t in pairs.items() if snap.t - t > self.config.touch_memory_s]:
                    del pairs[pair]
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
        for touch in snap.redated:
            self._came_to_rest_again(touch)
        if snap.changes:
            for change in snap.changes:
                if change.zone in self._piles:
                    self._covering(change)
                self._changed(change)
            self._reconcile()
        elif self.state.slap_due and (snap.touches or len(self._slaps) == len(self._players)):
            self._watch_slap()  # (both slapped one pile: it waits for the frames that see which hand lies beneath)
        if snap.touches and self.state.phase == "play" and self._laid(snap.touches):
            self._reconcile()
        if self._returns:
            self._judge_returns()
        if self._held:
            self._judge_held()
        if self._last_laid:
            self._lay_last_cards()
        if not snap.changes and (
                (self._deferred and (snap.unsettled != self._unsettled or snap.t >= self._look_again))
                or (self.state.phase in ("layout", "over") and self._layout_due <= snap.t)
                or self._ties):  # a card waiting for a rival's: looked at again in every frame until the evidence or TIE_WAIT_S
            self._reconcile()
        if snap.frame % 15 == 0 and self.state.phase == "play":  # twice a second: anything left unexplained?
            self._note_odd()
        if self._odd_for() >= RESYNC_S and self.state.phase == "play" and all(map(self._clear, self._odd)) \
                and not self._carried():
            self._odd = self._unexplained()
            if self._odd and not any(map(self._unread, self._odd)) and not any(map(self._stale, self._odd)):
                self._resync()
                self._reconcile()
        if self._resync_plays:
            self._settle_resync_plays()
        if self._spit_shift is not None and self._pending_spit and self._alone_by_the_other_slap():
            self._slap_went_the_other_way()
            self._reconcile()
        if self._doubted:
            self._settle_doubts()
        if self._call is not None:
            self._call_spit()
        if snap.read and self.state.phase == "play":
            self._call_on_first_read(snap.read)
        for zone, seen in snap.read.items():  # a stock top read on a spit pile or in its place, if only for a frame
            if zone in self._piles and seen in CARD_CODES:
                self._read_on_pile[seen] = (zone, snap.t)
            if zone in self._piles and seen != self.readings.get(zone):
                self._note_laid(zone, seen, self._now)
                glimpses = self._glimpses.setdefault(zone, [])
                if seen in CARD_CODES and all(code != seen for code, _ in glimpses):
                    glimpses.append((seen, self._now))
            if zone in self._unknown_read and seen != self._unknown_read[zone][0]:
                del self._unknown_read[zone]  # read once, then not again: a misread, or taken back
            if zone in self._piles and seen == self._expected(zone):
                self._top_read[zone] = snap.t
            elif zone in self._piles and seen in CARD_CODES and seen != self.readings.get(zone) \
                    and zone not in self._unknown_read and not self.state.cards()[parse_card(seen)]:
                self._unknown_read[zone] = (seen, self._read_clear.get(zone, -1.0))  # laid since the pile last read clear
            if seen == FACE_DOWN:
                self._face_down_read[zone] = snap.t
            elif seen == EMPTY and zone in self._owner:
                runs = self._empty_runs.setdefault(zone, [])
                if runs and snap.t - runs[-1][1] < 1.5 * self.frame_interval:
                    runs[-1][1] = snap.t
                else:
                    runs.append([snap.t, snap.t])
                    del runs[:-8]
            elif seen in CARD_CODES and zone in self._owner:
                self._read_in_place[seen] = (snap.t, zone)
                if self._expected(zone) == FACE_DOWN and not self.state.cards()[parse_card(seen)]:
                    self._read_turned_up[seen] = (zone, self._now)
            if zone in self._owner:
                self._turned_unread.discard(seen)
                if self._first_read.get(zone, ("", 0.0))[0] != seen:
                    self._first_read[zone] = (seen, snap.t)
            lift = self._lifted.get(seen)
            if lift is not None and lift.zone == zone and not lift.attempted and lift.t < snap.t \
                    and self._expected(zone) == seen and not self._touched_since(lift.player, lift.t, snap.t):
                del self._lifted[seen]  # back there (or never lifted), having touched no pile: not in a hand
                self._read_back[seen] = snap.t
        self._turned_unread.intersection_update(self._lifted)  # the others were played or came back
        self._unsettled = snap.unsettled
        shown = set()
        for zone in snap.zones:
            if zone not in snap.unsettled and zone not in snap.unread:
                if zone in self._owner:
                    self._back_unseen(zone, snap.zones[zone], self._read_clear.get(zone), snap.t)
                self._read_clear[zone] = snap.t
                self._waited.pop(zone, None)  # read: no longer waited for
                if zone in self._owner:
                    shown.add(snap.zones[zone])
        if any(item[4] == math.inf and item[0] in shown for item in self._refused):  # read back in its place
            self._refused = [(*item[:4], snap.t) if item[4] == math.inf and item[0] in shown else item
                             for item in self._refused]
        return self._out

    def finish(self) -> list[Event]:
        """The stream has ended: the calls that waited for frames to come and can be drawn from what
        was seen are made now: a player's last stock card laid unseen, waiting to come back
        (`_lay_last_cards`), and a slap on one pile waiting for its `beneath` votes."""
        self._out = []
        if self._last_laid:
            self._lay_last_cards(final=True)
        if self.state.slap_due and len(self._slaps) == len(self._players):
            self._watch_slap(final=True)
        return self._out

    def _remember(self, touches: tuple[Touch, ...]) -> None:
        horizon = self._now[0] - self.config.touch_memory_s
        for touch in touches:
            kept = self._touches.setdefault(touch.zone, [])
            if kept and kept[0].t < horizon:
                kept[:] = [k for k in kept if k.t >= horizon]
            touch = self._reached_as_it_came(touch, kept)
            self._reported_after_reread(touch, kept)
            kept.append(touch)

    def _lay_seen(self, zone: str, seen: When) -> When:
        """When the new state of `zone` first read at `seen` was first seen lying there: in the frame
        before, where that frame left the zone unread (it had changed and was not still yet; a zone is
        read once it lies still since the frame before, so what it shows lay there in that frame
        already); else `seen`."""
        before = seen[0] - self.frame_interval
        if abs(self._left_unread_at.get(zone, -math.inf) - before) < 0.25 * self.frame_interval:
            return round(before, 6), seen[1] - 1
        return seen

    def _came_to_rest_again(self, touch: Touch) -> None:
        """A hand's contact with a spit pile found again in the same touch with a later start
        (`Snapshot.redated`): the hand came to rest over the pile, moved on and came to rest again;
        the card it laid touched at that second rest, so the touch is dated from it. Not where the
        first date has been used already (a card judged at it, a call made or a record kept at it):
        what was dated there stays; nor where that hand has no card left to lay, its player's last
        stock card laid before the first rest (`_last_laid`) or the deal over: its first rest on the
        pile is its slap."""
        if touch.zone not in self._piles or touch.t < self._resumed_at:
            return
        kept = self._touches.get(touch.zone, [])
        i = next((i for i in range(len(kept) - 1, -1, -1) if kept[i].contact and kept[i].side == touch.side), None)
        if i is None or kept[i].t >= touch.t or self._dated_at(kept[i].t) or self.state.phase != "play" \
                or any(lift.player == touch.side and when[0] < kept[i].t for _, lift, _, when in self._last_laid):
            return
        kept[i] = replace(kept[i], t=touch.t, frame=touch.frame)

    def _dated_at(self, t: float) -> bool:
        """Something was judged, called or remembered at capture time `t` (a touch's date in use)."""
        if any(item[2] == t for item in self._used) or any(when == t for when, _ in self._made) \
                or any(item[1] == round(t, 6) for item in self._flags_called):
            return True
        kept = (list(self._took_back.values()) + list(self._taken_off.values()) + self._returns + list(self._held.values())
                + self._last_laid + self._refused + list(self._pending_spit.values()) + list(self._slaps.values())
                + list(self._flagged.values()) + list(self._laid_seen.values()) + list(self._lifted.values()))
        return any(_holds(item, t) for item in kept)

    def _reached_as_it_came(self, touch: Touch, kept: list[Touch]) -> Touch:
        """A contact of a player's hand with their own face-down stock top, dated (the reach's end, the
        frame it stirred least before the card turned) one frame after that hand came over the place:
        the hand came down on the card as it came over it, so it touched it by the frame it came, and
        the least stirring was the turn's first frame. Dated from the hand's coming instead."""
        s = self.state
        if not touch.contact or self._owner.get(touch.zone) != touch.side or not s.pile(touch.zone) \
                or s.face_up(touch.zone):
            return touch
        came = next((k for k in reversed(kept) if k.side == touch.side and not k.contact), None)
        if came is None or abs(touch.t - came.t - self.frame_interval) > 0.25 * self.frame_interval:
            return touch
        return replace(touch, t=came.t)

    def _changed(self, change: ZoneChange) -> None:
        zone = change.zone
        if zone in self._piles:
            if zone in self._ties:
                self._waited_under(zone, change.after)
            self._played_second(zone, change.after)
            self._lifted_off(zone, change.after, change.seen_t)
            self._taken_off_unseen(zone, change.after, change.seen_t)
            self._unknown_taken_off(zone, change.after, change.seen_t)
        self.readings[zone] = change.after
        self._seen[zone] = self._lay_seen(zone, (change.seen_t, change.seen_frame))
        self._read_confidence[zone] = change.confidence
        if self._end_t is not None:
            self._changed_since_end.add(zone)
        if zone in self._owner:
            self._layout_due = change.seen_t + LAYOUT_STILL_S
        if zone in self._piles:
            reads = self._pile_reads.setdefault(zone, [])
            self._glimpsed[zone] = ([item for item in self._glimpses.pop(zone, []) if item[0] != change.after],
                                    reads[-1][1] if reads else -math.inf)
            reads.append((change.after, change.seen_t))
            del reads[:-4]
            self._note_laid(zone, change.after, (change.seen_t, change.seen_frame))
            self._ties.pop(zone, None)
            for key in [key for key in self._flagged if key[0] == zone and key[1] != change.after]:
                side, since = self._flagged.pop(key)
                self._unsure.discard(key)
                self._laid_seen.pop(key, None)  # refused there and taken off: no play to find at a re-read
                self._took_back[zone] = (side, since, change.seen_t)
                lift = self._lifted.get(key[1])
                if lift is not None and lift.attempted:  # taken back into its player's hand: it may be laid again
                    if self.readings.get(lift.zone) == key[1]:
                        del self._lifted[key[1]]  # its place was never seen without it: it goes back unseen
                    else:
                        self._lifted[key[1]] = Lift(lift.player, lift.zone, change.seen_t)
            return
        self._shown_until[zone] = self._read_clear.get(zone, change.seen_t)
        if change.after in CARD_CODES:
            self._stock_read.add(change.after)
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

    def _emit(self, kind: str, when: When, **fields: Any) -> None:
        if kind in ("illegal_play", "premature_spit"):  # a call against a player is made once (a re-read may judge it again)
            key = (kind, round(when[0], 6), fields.get("player"), fields.get("card"), fields.get("move"))
            if key in self._flags_called:
                return
            self._flags_called = self._recent(self._flags_called, 1)
            self._flags_called.add(key)
        event = Event.make(kind, round(when[0], 6), **fields, frame=when[1], called_at=round(self._now[0], 6))
        self._out.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def _recent(self, remembered: set[Any], at: int) -> set[Any]:
        """`remembered` (tuples whose time is item `at`), less those older than `CALLS_MEMORY_S`
        once it holds more than 64: what is remembered of the calls does not grow with the game."""
        if len(remembered) <= 64:
            return remembered
        horizon = self._now[0] - CALLS_MEMORY_S
        return {item for item in remembered if item[at] >= horizon}

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

    def _stock_top_of(self, card: Card) -> tuple[str, str] | None:
        """(player, zone) of the stock pile whose face-up top is `card`, or that it was lifted from."""
        lift = self._lifted.get(card.code)
        if lift is not None and self.state.top(lift.zone) is card:
            return lift.player, lift.zone
        for zone in self._stock_zones:
            if self.state.top(zone) is card:
                return self._owner[zone], zone
        return None

    def _landed_on(self, t: float, side: str) -> SpitState | None:
        """The engine's position when a spit card of `side` touched a pile at `t`: the last plays and
        moves into a space, dated by their touch more than `SPIT_LEAD_S` after it, left out, and so are another
        player's spit cards dated less than `SPIT_ROUND_S` before it or later (laid at the same
        stalemate); any other move since is taken to have been made before it (a move applied
        after a play left out, as a turn-up whose card was read late, is made again without it).
        None when a move kept cannot be made again without those left out (the position is not known)."""

        def other_stalemate(when: float, move: SpitMove) -> bool:
            """A spit card laid at another stalemate, or this player's own: every move before it was made before `t`."""
            return isinstance(move, Spit) and not any(
                date == when and side not in players and date > t - SPIT_ROUND_S for date, players in self._spits)

        def after_it(when: float, move: SpitMove) -> bool:
            if isinstance(move, Spit):
                return True  # a spit card of the same stalemate (the others stop the search)
            return when > t + SPIT_LEAD_S and ((isinstance(move, (Play, MoveToSpace)) and any(
                touch.contact and touch.side == move.player and touch.t == when
                for touch in self._touches.get(move.to, ()))) or (isinstance(move, TurnUp) and any(
                touch.contact and touch.side == move.player and when <= touch.t <= when + TURN_S
                for touch in self._touches.get(move.pile, ()))))  # else made before it, or dated less surely

        state, kept = self._without(after_it, stop=other_stalemate)
        for move in kept:
            try:
                state = state.apply(move)
            except IllegalMove:
                return None
        return state

    def _state_at(self, t: float, *, before: bool = False) -> SpitState:
        """The engine's position at time `t` (moves dated later, or with `before` at `t` too,
        left out), as far as remembered. Moves are applied in the order they are found, not always
        in their dates' order: one applied after a move left out, dated before `t` (a turn-up read
        late), is made again without it."""
        state, kept = self._without(lambda when, move: when > t or (when == t and before))
        for move in kept:
            try:
                state = state.apply(move)
            except IllegalMove:
                break  # it needed a move left out: the position as far as it can be rebuilt
        return state

    def _without(self, left_out: Callable[[float, SpitMove], bool],
                 stop: Callable[[float, SpitMove], bool] = lambda when, move: False) -> tuple[SpitState, list[SpitMove]]:
        """The engine's position before the earliest move `left_out` leaves out (looking back from the
        last move found, no further than one `stop` takes as made before), and the moves found after
        it that it keeps, in the order found: those to make again on that position."""
        state = self.state
        kept: list[SpitMove] = []
        passed: list[SpitMove] = []
        for (when, previous), (_, move) in zip(reversed(self._history), reversed(self._made)):
            if stop(when, move):
                break
            if not left_out(when, move):
                passed.insert(0, move)
                continue
            state, kept = previous, list(passed)
        return state, kept

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
            self._spits.append((when[0], self._spitters(move, extra.get("contact", {}))))
            del self._spits[:-4]
        for side, t in extra.get("contact", {}).items():
            self._used.update((pile, side, t) for pile in self._piles)
        if len(self._used) > 64:
            horizon = self._now[0] - self.config.touch_memory_s
            self._used = {used for used in self._used if used[2] >= horizon}
        ended = after.phase in ("settle", "layout", "over") and self._end_t is None
        if isinstance(move, Spit) and self._call is not None:  # the players confirm the stalemate
            call, self._call = self._call, None
            if not self._spat_before(extra.get("contact", {}).values()):
                self._emit("spit_call", call)
        for kind, fields in transition_events(before, move, after):
            if kind == "spit_call":
                if not self._take_first_read_call(after):
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
        if isinstance(move, TurnUp) and self._spat_early and after.phase == "play" and after.is_stalemate():
            self._spat_at_hidden_turn(when[0])

    def _carried(self) -> bool:
        """A stock card was seen lifted less than `TOUCH_REACH_S` ago and has not landed nor come back:
        a hand carries it, and a re-read of the table now would count its place without it and miss
        where it lands (the re-read waits for it)."""
        return any(not lift.attempted and self._now[0] - lift.t < TOUCH_REACH_S for lift in self._lifted.values())

    def _spitters(self, move: Spit, contact: dict[str, float]) -> frozenset[str]:
        """The players who laid the spit cards of `move`: those whose contact was seen, or every player
        when it lays a card on every pile (each player lays one; a hand unseen laid the other)."""
        if len(move.cards) == len(self._players):
            return frozenset(self._players)
        return frozenset(contact)

    def _clear(self, zone: str) -> bool:
        """`zone` has been settled (no hand over it, readable, no new state pending) since the last frame."""
        return self._now[0] - self._covered.get(zone, -1.0) > 0.5 * self.frame_interval

    def _reconcile(self) -> None:
        """Explain every zone that differs from the engine's position by a move, until none can be
        (at most `MOVES_PER_FRAME` moves: a card read in two places at once, as across a cut in the
        video, could otherwise be moved back and forth for ever)."""
        self._deferred = False
        self._look_again = math.inf
        progress = True
        steps = 0
        while progress and steps < MOVES_PER_FRAME:
            steps += 1
            phase = self.state.phase
            if phase in ("layout", "over"):  # a layout dealt after the game's end: it was misjudged, or a new game
                self._read_layout()
                if self.state.phase == phase:
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
        self._note_odd()

    def _try(self, move: SpitMove, when: When) -> bool:
        """Apply `move` if the engine finds it legal (else it is no explanation of what is seen)."""
        if self.state.check(move) is not None:
            return False
        card = getattr(move, "card", None)
        if card is not None:
            self._settle_lift(card, when)
        self._apply(move, when)
        return True

    @staticmethod
    def _expected_in(state: SpitState, pile: str) -> str:
        """What `state` has on top of spit pile `pile`."""
        top = state.top(pile)
        return EMPTY if top is None else top.code


def _holds(item: object, t: float) -> bool:
    """`item` (a record: a tuple, perhaps nested, or a dataclass) holds the time `t`."""
    if isinstance(item, float):
        return item == t
    if isinstance(item, tuple):
        return any(_holds(part, t) for part in item)
    fields = getattr(item, "__dataclass_fields__", None)
    return fields is not None and any(_holds(getattr(item, name), t) for name in fields)
