"""Spit and all its variants for the table loop: deals, spits, deal ends with slaps or choices, new layouts, misplays."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from referee.cards import full_deck, parse_card
from referee.rules.base import Move
from referee.rules.spit_moves import (
    ChoosePile,
    Deal,
    Draw,
    HandPlay,
    Layout,
    Play,
    Refill,
    Reshuffle,
    Slap,
    Spit,
    TurnUp,
)
from referee.rules.spit_options import SpitRules
from referee.rules.spit_state import SpitState
from referee.simulate.record import seconds
from referee.simulate.spit_table import TableSim

_RANK = {Play: 0, HandPlay: 0, TurnUp: 1, Refill: 2, Draw: 3}
"""The bot's preference by move class, as `referee.simulate.bots.PRIORITY` (lower first); other
moves the engine calls useful (into a space, stacking equal ranks) come last."""


class SpitOps:
    """The `TableOps` of `referee.rules.spit_state` (classic Spit and every preset). One instance
    simulates one game: it remembers whether the current deal's end has been logged."""

    turn_based = False

    def __init__(self) -> None:
        self._end_logged = False

    # --- dealing -------------------------------------------------------------------------------

    def start(self, rules: SpitRules, rng: random.Random) -> tuple[SpitState, dict[str, Any]]:
        deck = list(full_deck()) * rules.decks
        rng.shuffle(deck)
        state = rules.deal(deck)
        fields = layout_fields(state)
        if rules.five_card_hand:
            fields["deck"] = [c.code for c in deck]
        else:
            n = rules.players
            fields["packets"] = {p: [c.code for c in deck[i::n]] for i, p in enumerate(state.players)}
        return state, fields

    def restart(self, rules: SpitRules, layout: Mapping[str, Any]) -> SpitState:
        if rules.five_card_hand:
            return rules.deal([parse_card(code) for code in layout["deck"]])
        packets = [layout["packets"][p] for p in rules.player_names]
        deck = [parse_card(packet[k]) for k in range(max(map(len, packets))) for packet in packets if k < len(packet)]
        return rules.deal(deck)

    def counts(self, state: SpitState) -> dict[str, int]:
        return state.counts()

    def move_from_event(self, state: SpitState, kind: str, fields: Mapping[str, Any]) -> Move | None:
        """The layout, deal, slap or reshuffle a logged event records (the engine lists these
        only in one fixed form)."""
        cards = _cards
        if kind == "layout" and "packets" in fields:
            return Layout(tuple(cards(fields["packets"][p]) for p in state.players))
        if kind == "layout" and "deck" in fields:
            return Deal(cards(fields["deck"]))
        if kind == "slap":
            return Slap(
                tuple((p, fields["piles"][p], t) for p, t in fields["contact"].items()),
                underneath=fields.get("underneath"),
            )
        if kind == "reshuffle" and "left" in fields:
            return Reshuffle(cards(fields["left"]), cards(fields["right"]))
        return None

    # --- the players -----------------------------------------------------------------------------

    def hands(self, state: SpitState) -> int:
        return state.rules.hands

    def moves(self, state: SpitState, player: str) -> list[Move]:
        if not state.can_move(player) and player not in state.choosers():
            return []  # the engine's quick test: no useful move (most looks find none)
        return list(state.useful_moves(player))

    def choose(self, state: SpitState, player: str, moves: list[Move], rng: random.Random) -> Move | None:
        """A pile choice when one is due, else a move of the most preferred class at random (the
        engine's `useful_moves` already leaves out pointless rearrangements)."""
        choices = [m for m in moves if isinstance(m, ChoosePile)]
        if choices:
            return _pick_pile(state, choices, rng, 0.0)
        best: list[Move] = []
        best_rank = len(_RANK)
        for move in moves:
            rank = _RANK.get(type(move), len(_RANK))
            if rank < best_rank:
                best, best_rank = [move], rank
            elif rank == best_rank:
                best.append(move)
        return rng.choice(best) if best else None

    def misplays(self, state: SpitState, player: str) -> list[Move]:
        """A face-up stock top (five-card hand: a hand card) put onto a spit pile it does not fit."""
        if state.phase != "play" or not state.is_active(player):
            return []
        rules = state.rules
        piles = [name for name in rules.spit_pile_names if state.top(name) is not None]
        moves: list[Move]
        if rules.five_card_hand:
            hand = dict.fromkeys(c for c in state.hand(player) if c is not None)  # each card once, in order
            moves = [HandPlay(player, card, pile) for card in hand for pile in piles]
        else:
            tops = [(name, state.top(name)) for name in rules.stock_names[rules.player_index[player]]]
            moves = [Play(player, card, name, pile) for name, card in tops if card is not None for pile in piles]
        return [m for m in moves if state.check(m) is not None]

    def spit_attempt(self, state: SpitState, player: str) -> Move | None:
        rules = state.rules
        i = rules.player_index[player]
        if rules.five_card_hand:
            reserve = state.reserves()[i]
            return Spit(((rules.spit_pile_names[i], reserve[0]),)) if reserve else None
        spit = state.spit_cards(player)
        if not spit or not state.is_active(player):
            return None
        return Spit(((rules.spit_pile_names[min(i, len(rules.spit_pile_names) - 1)], spit[0]),))

    def deal_over(self, state: SpitState) -> bool:
        """Anything but play: the deal ended, or a new one waits for its first Spit."""
        return state.phase != "play"

    # --- the table -------------------------------------------------------------------------------

    def table_turn(self, sim: TableSim) -> bool:
        state: SpitState = sim.state  # type: ignore[assignment]
        phase = state.phase
        if phase in ("settle", "layout", "over") and not self._end_logged:
            ender = state.deal_ender()
            player, why = ender if ender is not None else (state.players[0], "")
            scores = {"scores": state.scores} if state.rules.five_card_hand else {}
            sim.recorder.add(sim.last_change, "deal_end", player=player, counts=state.counts(), reason=why, **scores)
            self._end_logged = True
            return True
        if phase == "start":
            opening = [m for m in state.legal_moves() if isinstance(m, Spit)]
            self._spit(sim, opening, sim.last_change + sim.pause(), call=False)
        elif phase == "play":
            if not state.is_stalemate():
                return False
            table = [m for m in state.legal_moves() if m.player is None]
            if any(isinstance(m, Reshuffle) for m in table):
                self._reshuffle(sim)
                table = [m for m in sim.state.legal_moves() if isinstance(m, Spit)]
            if not table:
                return False
            self._spit(sim, [m for m in table if isinstance(m, Spit)], sim.last_change, call=True)
        elif phase == "settle":
            if state.slap_due:
                self._slap(sim)
            else:
                self._choices(sim)
        elif phase == "layout":
            self._layout(sim)
        else:
            return False
        return True

    def _spit(self, sim: TableSim, options: Sequence[Spit], t0: int, *, call: bool) -> None:
        """Both say "Spit!" (the referee's call at `t0`, when the stalemate began; a deal's opening
        spit: when the dealt layout has lain still for the players' pause) and each spitter turns a
        card after their reaction; the spit event comes when the last card lies."""
        state: SpitState = sim.state  # type: ignore[assignment]
        if call:
            sim.recorder.add(t0, "spit_call")
        move = sim.rng.choice(list(options))
        names = state.rules.spit_pile_names
        solo = [p for p in state.players if state.is_active(p) and state.spit_count(p)]
        contact = {}
        for pile, _ in move.cards:
            player = solo[0] if len(move.cards) == 1 and len(solo) == 1 else state.players[names.index(pile)]
            contact[player] = max(t0, sim.free_at(player), sim.pile_free_at(pile)) + sim.reaction(player) + sim.travel(player) // 3
        t = max(contact.values())
        kind, fields = move.event()
        sim.recorder.add(t, kind, **fields, contact={p: seconds(c) for p, c in contact.items()})
        sim.changed(t, state.apply(move))

    def _reshuffle(self, sim: TableSim) -> None:
        """Five-card hand: the cards under the centre tops, gathered and shuffled into two reserves."""
        state: SpitState = sim.state  # type: ignore[assignment]
        rest = [c for name in state.rules.spit_pile_names for c in state.pile(name)[:-1]]
        sim.rng.shuffle(rest)
        half = (len(rest) + 1) // 2
        move = Reshuffle(tuple(rest[:half]), tuple(rest[half:]))
        t = sim.last_change + max(sim.timings[p].layout(sim.rng) // 4 for p in state.players)
        kind, fields = move.event()
        sim.recorder.add(t, kind, **fields, left=[c.code for c in move.left], right=[c.code for c in move.right])
        sim.changed(t, state.apply(move))

    def _slap(self, sim: TableSim) -> None:
        """Each player slaps a spit pile (normally the smaller) after their reaction and travel."""
        state: SpitState = sim.state  # type: ignore[assignment]
        t0 = sim.last_change
        touches = []
        for player in state.players:
            pile = _pick_pile(state, [ChoosePile(player, n) for n in state.rules.spit_pile_names], sim.rng,
                              sim.mistakes.wrong_slap).pile
            touches.append((player, pile, t0 + sim.reaction(player) + sim.travel(player)))
        (a, pile_a, ta), (b, pile_b, tb) = touches
        underneath = sim.rng.choice((a, b)) if pile_a == pile_b and ta == tb else None
        move = Slap(tuple((p, pile, seconds(t)) for p, pile, t in touches), underneath=underneath)
        kind, fields = move.event()
        extra = {"underneath": underneath} if underneath else {}
        t = max(ta, tb)
        sim.recorder.add(t, kind, **fields, **extra)
        sim.changed(t, state.apply(move))

    def _choices(self, sim: TableSim) -> None:
        """The players due to choose take a spit pile each, the quickest of a group first."""
        state: SpitState = sim.state  # type: ignore[assignment]
        t = sim.last_change
        while state.phase == "settle" and state.choosers():
            reach = {p: t + sim.reaction(p) + sim.travel(p) for p in state.choosers()}
            player = min(reach, key=lambda p: (reach[p], p))
            move = self.choose(state, player, [m for m in state.legal_moves(player) if isinstance(m, ChoosePile)], sim.rng)
            assert move is not None
            t = reach[player]
            kind, fields = move.event()
            sim.recorder.add(t, kind, **fields)
            state = state.apply(move)
            sim.changed(t, state)

    def _layout(self, sim: TableSim) -> None:
        """Everyone gathers, shuffles and deals a new layout (five-card hand: one new deal)."""
        state: SpitState = sim.state  # type: ignore[assignment]
        move = state.shuffled_layout(sim.rng)
        t = sim.last_change + max(sim.timings[p].layout(sim.rng) for p in state.players)
        after = state.apply(move)
        fields = layout_fields(after)
        if isinstance(move, Layout):
            fields["packets"] = {p: [c.code for c in packet if c is not None] for p, packet in zip(state.players, move.cards)}
        else:
            fields["deck"] = [c.code for c in move.cards]
        sim.recorder.add(t, "layout", **fields)
        sim.changed(t, after)
        self._end_logged = False


def layout_fields(state: SpitState) -> dict[str, Any]:
    """What a renderer needs of a freshly dealt position: every stock pile bottom to top (its top
    card face up), spit cards next first, the spit piles, counts; five-card hand: hands and reserves."""
    rules = state.rules
    fields: dict[str, Any] = {
        "stock": {name: _codes(state.pile(name)) for names in rules.stock_names for name in names},
        "piles": {name: _codes(state.pile(name)) for name in rules.spit_pile_names},
        "counts": state.counts(),
    }
    if rules.five_card_hand:
        fields["hands"] = {p: _codes(state.hand(p)) for p in state.players}
        fields["reserves"] = {name: _codes(r) for name, r in zip(rules.spit_pile_names, state.reserves())}
    else:
        fields["spit_cards"] = {p: _codes(state.spit_cards(p)) for p in state.players}
    return fields


def _pick_pile(state: SpitState, options: Sequence[ChoosePile], rng: random.Random, wrong: float) -> ChoosePile:
    """The smaller spit pile (ties at random); the larger with chance `wrong`."""
    sizes = {m.pile: len(state.pile(m.pile)) for m in options}
    ordered = sorted(options, key=lambda m: (sizes[m.pile], rng.random()))
    return ordered[-1] if rng.random() < wrong else ordered[0]


def _codes(cards: Sequence[Any]) -> list[str]:
    return [c.code if c is not None else "back" for c in cards]


def _cards(codes: Sequence[str]) -> tuple[Any, ...]:
    return tuple(parse_card(code) for code in codes)
