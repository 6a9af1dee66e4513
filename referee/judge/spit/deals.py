"""Deal ends, slaps, free choices and reading each new layout."""

from __future__ import annotations

import math
from typing import Any

from referee.cards import parse_card
from referee.judge.spit.config import (
    BENEATH,
    LAYOUT_STILL_S,
    SLAP_FALLBACK,
    TOO_CLOSE,
    UNDERNEATH,
    UNREAD_LAYOUT_S,
    When,
    beneath_votes,
    layout_counts,
    lying_beneath,
    slap_winner,
)
from referee.observations import CARD_CODES, EMPTY
from referee.rules.spit import (
    ChoosePile,
    ImpossiblePosition,
    Slap,
    SpitState,
)


class DealEnds:
    """The deal's end, the slap, and the next layout read. A part of `SpitReferee`, which holds the state."""

    def _deal_ended(self, after: SpitState, when: When) -> None:
        """The deal is over in the engine's position `after` (a move at `when` emptied a stock):
        `deal_end`, unless one of the ender's stock places was last read showing a card the engine
        has nowhere (it lost a card of theirs, as a card refused, taken back and read only once the
        position had been read again without it): the position is then read again from the table,
        and spit cards doubted on the one found wrong are left unjudged. Cards refused and not seen
        back in their place stay flagged on their pile: their players' hands come for them."""
        ender = after.deal_ender()
        player, reason = ender if ender is not None else (self._players[0], "")
        if ender is not None and self._stock_shown(player, after):
            self._odd = self._unexplained()
            self._resync()
            self._doubted.clear()  # spit cards doubted on the position found wrong are not judged on it
            return
        self._end_t = when[0]
        self._changed_since_end = set()
        self._slaps = {}
        self._lifted.clear()
        for code, side, pile, since, back in self._refused:  # refused and not seen back: its player comes for it,
            if back == math.inf:  # and that touch is no slap
                self._flagged.setdefault((pile, code), (side, since))
        self._refused.clear()
        self._pending_spit.clear()
        self._spat_early.clear()

        self._emit("deal_end", when, player=player, counts=after.counts(), reason=reason)

    def _stock_shown(self, player: str, state: SpitState) -> bool:
        """A stock place of `player` was last read showing a card that `state` has nowhere (in its
        place still, or in their hand: not played)."""
        known = state.cards()
        return any(self.readings.get(zone) in CARD_CODES and not known[parse_card(self.readings[zone])]
                   for zone in self.rules.stock_names[self.rules.player_index[player]])

    def _watch_slap(self, final: bool = False) -> None:
        """Both players' first contact with a spit pile after the deal ended decides the slap (a
        hand taking back a card flagged on the pile is not slapping). On one pile, the slap waits for
        the frames after both contacts that see one hand lying beneath the other arm (`_lying_votes`):
        that hand takes the pile (`BENEATH`), else the contacts decide; the event is dated at the later
        contact, as every slap (`called_at` says when the verdict was drawn). `final`: the stream has
        ended, the votes seen so far decide."""
        if len(self._slaps) < len(self._players):  # both found stand while the slap waits (a flag lifted
            self._find_slaps()  # meanwhile would make a hand's take-back touch its slap)
        if len(self._slaps) < len(self._players):
            return
        (a, (pile_a, when_a, under_a)), (b, (pile_b, when_b, under_b)) = sorted(self._slaps.items())
        lying = None
        later = max((when_a, when_b), key=lambda w: w[0])
        if pile_a == pile_b:
            votes = self._lying_votes(pile_a, (a, b), max(when_a[1], when_b[1]), final)
            if votes is None:
                return
            lying = lying_beneath(a, b, votes)
        margin = round((when_b[0] - when_a[0]) * 1000, 3)
        extra: dict[str, Any] = {}
        ender = self.state.deal_ender()
        winner, settled = slap_winner(a, pile_a, when_a[0], under_a, b, pile_b, when_b[0], under_b,
                                      self.frame_interval, ender[0] if ender is not None else a, lying)
        if settled is not None:
            extra = ({"verdict": settled, "underneath": winner} if settled in (UNDERNEATH, BENEATH)
                     else {"verdict": TOO_CLOSE, "fallback": SLAP_FALLBACK})
            t0 = min(when_a[0], when_b[0])
            move = Slap(((a, pile_a, t0), (b, pile_b, t0)), underneath=winner)
        else:
            move = Slap(((a, pile_a, when_a[0]), (b, pile_b, when_b[0])))
        first_pile = pile_a if winner == a else pile_b
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

    def _find_slaps(self) -> None:
        """Each player's first contact with a spit pile after the deal ended, the touches of a hand
        taking back a card flagged on the pile left out (`_slaps`)."""
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
                        self._slaps[touch.side] = (pile, (touch.t, touch.frame), touch.under)

    def _lying_votes(self, pile: str, sides: tuple[str, str], reported: int,
                     final: bool = False) -> list[tuple[str, ...]] | None:
        """The `beneath_votes` on a slap both `sides` made on `pile`, the later contact reported in frame
        `reported`, read from the hands of the last frames (the deal's end may be judged a second after the
        slap); None while their window is still open (the stream's end, `final`, closes it: the votes seen
        so far)."""
        votes, closed = beneath_votes(self._hands_seen, pile, sides, reported)
        return votes if closed or final else None

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
        doubted = self._shown_twice()
        unread |= doubted
        stocks: dict[str, list[tuple[int, str | None]]] = {}
        spit_cards = {}
        tops: dict[str, str] = {}
        latest: When = (0.0, 0)
        for i, player in enumerate(self._players):
            counts, spit_cards[player] = layout_counts(r.layout, held[player])
            stocks[player] = []
            for count, zone in zip(counts, r.stock_names[i]):
                top = self.readings.get(zone) if count and zone not in doubted else None
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
            other = {p: held[p] + self._spit_shift[p] + sum(self._stock_shift.get(zone, 0) for zone in r.stock_names[i])
                     for i, p in enumerate(self._players)}
        self._spit_shift = None
        if other is not None and other != held and all(  # the same places filled either way: only the counts differ
                0 <= other[p] <= r.total_cards and self._patterns[other[p]] == self._patterns[held[p]]
                for p in self._players):
            self._spit_shift = {p: layout_counts(r.layout, other[p])[1] - spit_cards[p] for p in self._players}
            self._stock_shift = {zone: n - m for i, p in enumerate(self._players) for zone, n, m in zip(
                r.stock_names[i], layout_counts(r.layout, other[p])[0], layout_counts(r.layout, held[p])[0])}
        self._first_layout = False
        self._stock_read = {code for code in tops.values() if code in CARD_CODES}
        self._unread_tops = unread
        self._end_t = None
        self._last_move_t = latest[0]
        self._moved = dict.fromkeys(self._owner, latest[0])
        self._landed.clear()
        self._history.clear()
        self._emit("layout", latest, counts=self.state.counts(), tops=tops)

    def _shown_twice(self) -> set[str]:
        """The stock places whose read card another place shows with a surer read (a card of the
        game is in one place only): one of the two reads is wrong, so the less sure one is taken as
        not read, as a top never read is (`_unread_tops`: its next read turns it up), rather than
        the layout never being read at all. Between equally sure reads the later-listed place is doubted."""
        places = [zone for names in self.rules.stock_names for zone in names if self.readings.get(zone) in CARD_CODES]
        places.sort(key=lambda zone: -self._read_confidence.get(zone, 1.0))
        shown: dict[str, int] = {}
        doubted = set()
        for zone in places:
            code = self.readings[zone]
            shown[code] = shown.get(code, 0) + 1
            if shown[code] > self.rules.decks:
                doubted.add(zone)
        return doubted

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
