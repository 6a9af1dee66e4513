"""Full-deck and four-card layout Spit for the table loop: the opening and later spits, the count, misplays."""

from __future__ import annotations

from typing import Any

from referee.cards import is_adjacent
from referee.rules.owndeck import HAND, PILES, OwnDeckState, Play, Spit
from referee.simulate.spit_table import TableSim


class OwnDeckOps:
    """The `TableOps` of the own-deck games (`referee.rules.owndeck`)."""

    def hands(self, state: OwnDeckState) -> int:
        return 1

    def open(self, sim: TableSim) -> None:
        state: OwnDeckState = sim.state  # type: ignore[assignment]
        sim.recorder.add(0, "deal", **deal_fields(state))

    def table_turn(self, sim: TableSim) -> bool:
        state: OwnDeckState = sim.state  # type: ignore[assignment]
        moves = [m for m in state.legal_moves() if m.player is None]
        if not moves:
            return False
        move = sim.rng.choice(moves)
        t0 = sim.last_change
        if not isinstance(move, Spit):  # the count: nobody can move or spit
            kind, fields = move.event()
            sim.recorder.add(sim.now, kind, **fields)
            sim.changed(sim.now, state.apply(move))
            return True
        if state.started:
            sim.recorder.add(t0, "spit_call")
        contact = {p: max(t0, sim.free_at(p)) + sim.reaction(p) + sim.travel(p) // 3 for p, _, _ in move.turns}
        t = max(contact.values())
        kind, fields = move.event()
        sim.recorder.add(t, kind, **fields, contact={p: c / 1000 for p, c in contact.items()})
        sim.changed(t, state.apply(move))
        return True

    def counts(self, state: OwnDeckState) -> dict[str, int]:
        return {p: state.cards_left(p) for p in state.players}

    def deal_over(self, state: OwnDeckState) -> bool:
        return state.is_over()

    def misplays(self, state: OwnDeckState, player: str) -> list[Play]:
        """A card the player may move now put onto a play pile whose top it is not next to."""
        if not state.started:
            return []
        held = getattr(state, "hands", (None, None))[state.players.index(player)]
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
        held = getattr(state, "hands", (None, None))[i]
        return Spit(((player, PILES[i], held if held is not None else state.decks[i][0]),))


def deal_fields(state: OwnDeckState) -> dict[str, Any]:
    """The `deal` event of a dealt own-deck position: layout places, decks (top card first), counts."""
    stock = {place: [card.code] if card is not None else [] for p in state.players for place, card in state.layout(p).items()}
    return {
        "stock": stock,
        "piles": {pile: [c.code for c, _ in state.piles[k] if c is not None] for k, pile in enumerate(PILES)},
        "counts": OwnDeckOps().counts(state),
        "decks": {p: [c.code for c in state.decks[i] if c is not None] for i, p in enumerate(state.players)},
    }
