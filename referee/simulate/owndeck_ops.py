"""Full-deck and four-card layout Spit for the table loop: the opening and later spits, the count, misplays."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from referee.cards import Card, full_deck, is_adjacent
from referee.rules.base import Move
from referee.rules.fulldeck import FullDeckState
from referee.rules.owndeck import HAND, PILES, PLAYERS, OwnDeckRules, OwnDeckState, Play, Spit
from referee.simulate.bots import Bot
from referee.simulate.record import seconds
from referee.simulate.spit_table import TableSim

_BOT = Bot()


class OwnDeckOps:
    """The `TableOps` of the own-deck games (`referee.rules.owndeck`)."""

    turn_based = False

    def hands(self, state: OwnDeckState) -> int:
        return 1

    def start(self, rules: OwnDeckRules, rng: random.Random) -> tuple[OwnDeckState, dict[str, Any]]:
        decks = []
        for _ in PLAYERS:
            deck = list(full_deck())
            rng.shuffle(deck)
            decks.append(deck)
        state = rules.deal(*decks)
        fields = layout_fields(state)
        fields["packets"] = {p: [c.code for c in deck] for p, deck in zip(state.players, decks)}
        return state, fields

    def restart(self, rules: OwnDeckRules, layout: Mapping[str, Any]) -> OwnDeckState:
        packets = layout["packets"]
        return rules.deal(*(packets[p] for p in sorted(packets)))

    def move_from_event(self, state: OwnDeckState, kind: str, fields: Mapping[str, Any]) -> None:
        return None  # every move of these games is one the engine lists

    def moves(self, state: OwnDeckState, player: str) -> list[Move]:
        return list(state.legal_moves(player))

    def choose(self, state: OwnDeckState, player: str, moves: list[Move], rng: random.Random) -> Move | None:
        return _BOT.choose(state, player, moves, rng)

    def table_turn(self, sim: TableSim) -> bool:
        state: OwnDeckState = sim.state  # type: ignore[assignment]
        moves = [m for m in state.legal_moves() if m.player is None]
        if not moves:
            return False
        move = sim.rng.choice(moves)
        t0 = sim.last_change if state.started else sim.last_change + sim.pause()
        if not isinstance(move, Spit):  # the count: nobody can move or spit
            kind, fields = move.event()
            sim.recorder.add(sim.now, kind, **fields)
            sim.changed(sim.now, state.apply(move))
            return True
        if state.started:
            sim.recorder.add(t0, "spit_call")
        contact = {p: max(t0, sim.free_at(p), sim.pile_free_at(pile)) + sim.reaction(p) + sim.travel(p) // 3
                   for p, pile, _ in move.turns}
        t = max(contact.values())
        kind, fields = move.event()
        sim.recorder.add(t, kind, **fields, contact={p: seconds(c) for p, c in contact.items()})
        sim.changed(t, state.apply(move))
        return True

    def counts(self, state: OwnDeckState) -> dict[str, int]:
        return _counts(state)

    def deal_over(self, state: OwnDeckState) -> bool:
        return state.is_over()

    def misplays(self, state: OwnDeckState, player: str) -> list[Play]:
        """A card the player may move now put onto a play pile whose top it is not next to."""
        if not state.started:
            return []
        held = _held(state, player)
        if held is not None:
            cards = [(held, HAND)]
        else:
            cards = [(card, place) for place, card in state.layout(player).items() if card is not None]
        return [
            Play(player, card, source, pile)
            for card, source in cards for pile in PILES
            if not is_adjacent(card, state.top(pile))  # type: ignore[arg-type]
        ]

    def spit_attempt(self, state: OwnDeckState, player: str) -> Spit | None:
        if not state.can_spit(player):
            return None
        i = state.players.index(player)
        held = _held(state, player)
        return Spit(((player, PILES[i], held if held is not None else state.decks[i][0]),))


def layout_fields(state: OwnDeckState) -> dict[str, Any]:
    """What a renderer needs of a dealt own-deck position: layout places, play piles, counts."""
    stock = {place: [card.code] if card is not None else [] for p in state.players for place, card in state.layout(p).items()}
    return {
        "stock": stock,
        "piles": {pile: [c.code for c, _ in state.piles[k] if c is not None] for k, pile in enumerate(PILES)},
        "counts": _counts(state),
    }


def _counts(state: OwnDeckState) -> dict[str, int]:
    return {p: state.cards_left(p) for p in state.players}


def _held(state: OwnDeckState, player: str) -> Card | None:
    """The card a full-deck Spit player has drawn and holds (None if none, and in four-card Spit)."""
    return state.hands[state.players.index(player)] if isinstance(state, FullDeckState) else None
