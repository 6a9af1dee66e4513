"""The simultaneous-play table loop: every hand moves one card at a time and a card counts on touch."""

from __future__ import annotations

import heapq
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from referee.errors import IllegalMove, RefereeError
from referee.rules.base import GameState, Move
from referee.simulate.adapter import Adapter
from referee.simulate.bots import PLAY_KINDS
from referee.simulate.record import Recorder, seconds
from referee.simulate.timing import Mistakes, PlayerTiming

_DECIDE, _TOUCH, _BACK, _REACH_SPIT, _PREMATURE = range(5)
RACE_WINDOW_MS = 500
"""Two players' cards touching one centre pile less than this apart make a `race` (the window of
`referee.rules.spit_timing.resolve_simultaneous`); the second is judged against the new top."""
SEEN_MS = 200
"""An opponent's hand that has been moving for this long is seen heading for its pile: a player
then plays elsewhere when they can (a card already in the air is not dodged: a race)."""
HAND_NAMES = ("right", "left")
"""A two-handed player's hands, the first one the hand used alone."""
QUICK_KINDS = frozenset({"turn_up", "draw"})
"""Moves made where the card lies (turning it, taking a deck's top card): no travel after the reach."""
NOTICE_MAX_MS = 1500
"""A misplayed card is picked up again at most this long after it was laid down: its player (or
the opponent, or the referee) notices it within a reaction time, then reaches back for it."""


class StuckGame(RefereeError):
    """Nobody can move and the engine offers no table move: a bug in an engine or its adapter."""


@dataclass(frozen=True, slots=True)
class Motion:
    """One hand carrying one card (or turning one up): leaving its place at `start`, touching its
    target at `touch`. `kind` and `fields` are the move's log event."""

    player: str
    hand: int
    move: Move
    kind: str
    fields: Mapping[str, Any]
    start: int
    touch: int

    @property
    def target(self) -> str:
        return str(self.fields.get("to", self.fields.get("pile", "")))

    @property
    def source(self) -> str:
        return str(self.fields.get("from", self.fields.get("pile", "")))


@dataclass(slots=True)
class _Hand:
    player: str
    index: int
    motion: Motion | None = None
    token: int = 0
    wake: int | None = None
    busy_until: int = 0


@dataclass(frozen=True, slots=True)
class _Touch:
    t: int
    player: str


class TableOps(Adapter, Protocol):
    """What the table loop needs from a simultaneous-play game: the table's own moves (spits, deal
    ends with slaps, new layouts, the count) and the cards a careless player may misplay."""

    def hands(self, state: GameState) -> int:
        """Hands each player may use at once (2 with the two-hands option)."""
        ...

    def moves(self, state: GameState, player: str) -> list[Move]:
        """The moves `player` considers now (legal, and worth making where the engine says so)."""
        ...

    def choose(self, state: GameState, player: str, moves: list[Move], rng: random.Random) -> Move | None:
        """The bot's pick out of `moves`, or None to wait for the table to change."""
        ...

    def table_turn(self, sim: "TableSim") -> bool:
        """Nobody sees a move, or the deal or game has ended: make the table's move (the opening
        spit, a spit, a deal end with slaps or choices, a new layout, the count), recording its
        events, and return True; False when there is nothing left to do (then the game must be
        over, else the simulation is stuck)."""
        ...

    def deal_over(self, state: GameState) -> bool:
        """The table acts next (the deal or game has ended): cards still in the air are taken
        back and the hands rest until the table has made its moves."""
        ...

    def misplays(self, state: GameState, player: str) -> list[Move]:
        """Plays that break a rule which a careless `player` could make now (non-adjacent cards)."""
        ...

    def spit_attempt(self, state: GameState, player: str) -> Move | None:
        """The spit `player` would make now on their own, or None if they have no spit card."""
        ...


@dataclass
class TableSim:
    """One game in continuous time (integer milliseconds). Hands decide on what they see, cards
    count when they touch, a second card on a pile already changed is judged against the new top
    (a `race`), misplays are taken back, and `ops` makes the table's moves when nobody can move."""

    state: GameState
    ops: TableOps
    rng: random.Random
    timings: Mapping[str, PlayerTiming]
    mistakes: Mistakes
    recorder: Recorder
    now: int = 0
    last_change: int = 0
    max_ms: int = 6 * 3600 * 1000
    _queue: list[tuple[int, int, int, Any]] = field(default_factory=list)
    _seq: int = 0
    _hands: list[_Hand] = field(default_factory=list)
    _last_touch: dict[str, _Touch] = field(default_factory=dict)
    _refused: dict[str, int] = field(default_factory=dict)
    """Centre piles a misplayed card (or a spit card turned too early) was or is being laid on this
    deal, and when it is (or was) back in its place: nobody plays or spits onto them until then."""
    _two_hands: bool = False

    def run(self) -> GameState:
        """Play the game to its end; the final state."""
        per_player = self.ops.hands(self.state)
        self._two_hands = per_player > 1
        self._hands = [_Hand(p, i) for p in self.state.players for i in range(per_player)]
        while True:
            if not self._queue:
                if not self.ops.table_turn(self):
                    if self.state.is_over():
                        break
                    raise StuckGame(f"nobody can move and there is no table move at t={seconds(self.now)}s")
                if not self.ops.deal_over(self.state):
                    self.wake_all(self.now)
                continue
            t, _, kind, payload = heapq.heappop(self._queue)
            self.now = t
            if t > self.max_ms:
                raise StuckGame(f"the game has not ended after {seconds(self.max_ms)}s of play")
            if kind == _DECIDE:
                hand, token = payload
                if token == hand.token and hand.motion is None:
                    hand.wake = None
                    self._decide(hand)
            elif kind == _TOUCH:
                hand, motion = payload
                if hand.motion is motion:
                    self._touch(hand, motion)
            elif kind == _BACK:
                self._schedule_decision(payload, t + self.timings[payload.player].reaction(self.rng) // 2)
                self.wake_all(t)
            elif kind == _REACH_SPIT:
                self._reach_spit(payload)
            else:
                hand, motion = payload
                if hand.motion is motion:
                    self._premature(hand, motion)
        return self.state

    # --- helpers the table ops use -------------------------------------------------------------

    def reaction(self, player: str) -> int:
        return self.timings[player].reaction(self.rng)

    def travel(self, player: str) -> int:
        return self.timings[player].travel(self.rng)

    def pause(self) -> int:
        """How long a freshly dealt layout lies still, every hand off the table, before the
        opening spit: until the slower player is ready."""
        return max(self.timings[p].pause(self.rng) for p in self.state.players)

    def free_at(self, player: str) -> int:
        """When all of `player`'s hands are free (a misplayed card back in its place)."""
        return max(h.busy_until for h in self._hands if h.player == player)

    def pile_free_at(self, pile: str) -> int:
        """When a misplayed card laid on centre pile `pile` is back in its place (0: none was laid
        this deal): a card turned onto the pile at a stalemate comes after that."""
        return self._refused.get(pile, 0)

    def _refused_now(self) -> set[str]:
        """Centre piles a misplayed card lies on now."""
        return {pile for pile, back in self._refused.items() if back > self.now}

    def changed(self, t: int, state: GameState) -> None:
        """The table changed at `t` (ms) to `state`."""
        self.state = state
        self.now = max(self.now, t)
        self.last_change = t

    def wake_all(self, t: int) -> None:
        """Every idle hand looks at the table again after its player's reaction to a change at `t`
        (or sooner, if it was about to look anyway)."""
        for hand in self._hands:
            if hand.motion is None:
                when = max(t, hand.busy_until) + self.reaction(hand.player)
                if hand.wake is None or hand.wake < self.now or when < hand.wake:
                    self._schedule_decision(hand, when)

    def drop_motions(self) -> None:
        """Cards in the air are taken back without touching (the deal ended under them)."""
        for hand in self._hands:
            hand.motion = None
            hand.wake = None
            hand.token += 1
        self._queue.clear()
        self._last_touch.clear()
        self._refused.clear()

    # --- the hands ------------------------------------------------------------------------------

    def _push(self, t: int, kind: int, payload: Any) -> None:
        self._seq += 1
        heapq.heappush(self._queue, (t, self._seq, kind, payload))

    def _schedule_decision(self, hand: _Hand, t: int) -> None:
        hand.token += 1
        hand.wake = t
        self._push(t, _DECIDE, (hand, hand.token))

    def _contested(self, player: str) -> set[str]:
        """Centre piles that another player's hand is seen heading for."""
        return {
            h.motion.target for h in self._hands
            if h.motion is not None and h.player != player and h.motion.kind in PLAY_KINDS
            and h.motion.start <= self.now - SEEN_MS
        }

    def _busy_piles(self, hand: _Hand) -> set[str]:
        piles: set[str] = set()
        for other in self._hands:
            if other is not hand and other.player == hand.player and other.motion is not None:
                piles.update((other.motion.source, other.motion.target))
        return piles

    def _decide(self, hand: _Hand) -> None:
        player, state = hand.player, self.state
        busy = self._busy_piles(hand) if self._two_hands else set()
        busy.update(self._refused_now())
        moves = self.ops.moves(state, player)
        if busy:
            moves = [m for m in moves if not _uses(m, busy)]
        contested = self._contested(player)
        if contested:
            moves = [m for m in moves if not _uses(m, contested)] or moves
        move = None
        if self.rng.random() < self.mistakes.illegal:
            misplays = [m for m in self.ops.misplays(state, player) if not busy or not _uses(m, busy)]
            if misplays:
                move = self.rng.choice(misplays)
        if move is None:
            move = self.ops.choose(state, player, moves, self.rng)
        if move is None:
            if not self._refused_now() and self.rng.random() < self.mistakes.premature:
                self._push(self.now + self.reaction(player), _REACH_SPIT, hand)
            return
        kind, fields = move.event()
        timing = self.timings[player]
        start = self.now + timing.travel(self.rng) // 3
        if kind in QUICK_KINDS:
            touch = start
        else:
            touch = start + timing.travel(self.rng)
        motion = Motion(player, hand.index, move, kind, fields, start, touch)
        hand.motion = motion
        self._push(touch, _TOUCH, (hand, motion))

    def _touch(self, hand: _Hand, motion: Motion) -> None:
        hand.motion = None
        t, pile, player = motion.touch, motion.target, motion.player
        shared = motion.kind in PLAY_KINDS  # a card onto a centre pile
        last = self._last_touch.get(pile) if shared else None
        if last is not None and t - last.t < RACE_WINDOW_MS and last.player != player:
            self.recorder.add(
                t, "race", pile=pile, first=last.player, second=player, margin_ms=t - last.t,
                first_t=seconds(last.t), second_t=seconds(t),
            )
        try:
            after = self.state.apply(motion.move)
        except IllegalMove as exc:
            reason = str(exc)
        else:
            self.recorder.add(t, motion.kind, **motion.fields, start=seconds(motion.start), **self._which(hand))
            if shared:
                self._last_touch[pile] = _Touch(t, player)
            self.changed(t, after)
            if self.ops.deal_over(after):
                self.drop_motions()
            else:
                self.wake_all(t)
            return
        pickup = t + min(self.reaction(player) + self.travel(player), NOTICE_MAX_MS)
        back = pickup + self.travel(player)
        if shared:
            self._refused[pile] = back
        if "card" in motion.fields:  # else a spit pile chosen a moment after another player took it
            where = {"from": motion.source} if motion.source else {}  # a drawn card comes from the hand
            self.recorder.add(
                t, "illegal_play", player=player, card=motion.fields["card"], to=pile, reason=reason,
                start=seconds(motion.start), pickup=seconds(pickup), back=seconds(back), **where, **self._which(hand),
            )
        hand.busy_until = back
        self._push(back, _BACK, hand)

    def _which(self, hand: _Hand) -> dict[str, str]:
        """The `hand` field of a two-handed player's card motion."""
        return {"hand": HAND_NAMES[hand.index]} if self._two_hands else {}

    def _reach_spit(self, hand: _Hand) -> None:
        """An impatient player who saw no move of their own turns a spit card with `hand`, unless
        the hand has moved on to something else meanwhile, a misplayed card lies on a centre pile,
        or a card is on its way to that spit pile (something is happening after all)."""
        if hand.motion is not None or hand.busy_until > self.now or self._refused_now():
            return
        attempt = self.ops.spit_attempt(self.state, hand.player)
        if attempt is None:
            return
        kind, fields = attempt.event()
        pile = next(iter(fields["cards"]))
        if any(h.motion is not None and h.motion.target == pile for h in self._hands):
            return
        touch = self.now + self.travel(hand.player) // 3
        self._refused[pile] = touch  # nobody sends a card to the pile the spit card is turned onto
        motion = Motion(hand.player, hand.index, attempt, kind, fields, self.now, touch)
        hand.motion = motion
        hand.token += 1  # the hand no longer looks for a move (it looks again once the card is back)
        hand.wake = None
        self._push(touch, _PREMATURE, (hand, motion))

    def _premature(self, hand: _Hand, motion: Motion) -> None:
        """The spit card touches its spit pile: refused while a move exists (the card lies there
        until its player takes it back, as a misplayed card), else let go (the table's spit follows)."""
        hand.motion = None
        t, player = motion.touch, motion.player
        existing = next((m for p in self.state.players for m in self.ops.moves(self.state, p) if m.player is not None), None)
        if existing is None:
            return  # by now nobody can move: the table's spit follows
        try:
            self.state.apply(motion.move)
        except IllegalMove as exc:
            named = getattr(exc, "move", None) or existing  # the engine may name the move it saw
            pickup = t + min(self.reaction(player) + self.travel(player), NOTICE_MAX_MS)
            back = pickup + self.travel(player)
            pile, card = next(iter(motion.fields["cards"].items()))
            self._refused[pile] = back
            self.recorder.add(
                t, "premature_spit", player=player, move=named.describe(), reason=str(exc), card=card, to=pile,
                start=seconds(motion.start), pickup=seconds(pickup), back=seconds(back), **self._which(hand),
            )
            hand.busy_until = back
            self._push(back, _BACK, hand)


def _uses(move: Move, piles: set[str]) -> bool:
    """The move takes a card from, or puts one onto, one of `piles`."""
    fields = move.event()[1]
    return any(fields.get(name) in piles for name in ("from", "to", "pile"))
