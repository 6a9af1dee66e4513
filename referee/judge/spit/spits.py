"""The "Spit!" calls, spit cards and spits, premature or doubted, and who holds spit cards."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from referee.cards import FACE_DOWN, Card, parse_card
from referee.judge.spit.config import (
    ALONE,
    DOUBT_S,
    OTHER_SLAP,
    RESYNC_S,
    SPIT_LAID,
    SPIT_LEAD_S,
    SPIT_ROUND_S,
    TOUCH_REACH_S,
    TURN_S,
    When,
)
from referee.observations import CARD_CODES, EMPTY
from referee.rules.spit import (
    MoveToSpace,
    Play,
    Spit,
    SpitMove,
    SpitState,
    StackEqual,
    TurnUp,
)


class SpitCalls:
    """The stalemate's "Spit!" call, the spit cards laid and the spit. A part of `SpitReferee`, which holds the state."""

    def _call_spit(self) -> None:
        """"Spit!" once the engine's stalemate stands on a table it can explain: dated to the
        move that made it. A move found meanwhile (the stalemate was an artefact of a card not
        yet read) cancels it, and so does a spit card of the stalemate laid a frame or more ago,
        read or not (`_spat_since`: the players have called it, a "Spit!" now would come after
        theirs), or a spit card laid by the hand of the player whose play made the stalemate before
        that play's contact (`_spat_before_own_play`). Not waited for: a card in a hand (the engine
        has it in its place, where it has no move, or the engine would find one) unless it has been there longer than `TOUCH_REACH_S`, a
        spit card just laid, and a spit pile still under a hand whose last read is older than the
        play judged there at its touch (a card counts the moment it touches)."""
        call = self._call
        if call is None:
            return
        if not self.state.is_stalemate() or self.state.phase != "play" or self._spat_since(self._began(call[0])) \
                or self._spat_before(self._spat_before_own_play(call[0])):
            self._call = None
            return
        if self._spat_since(self._began(call[0]), unread=True):
            return  # a touch there may have laid a spit card: held until its pile is read
        if self._explained():
            self._call = None
            self._emit("spit_call", call)

    def _spat_before(self, touched: Iterable[float]) -> bool:
        """A spit card of the stalemate touched its pile (at one of the times `touched`) a frame or
        more before now: the players have called it, and a "Spit!" now would come after theirs (a
        contact is seen up to a frame late)."""
        return any(t + self.frame_interval <= self._now[0] + 1e-6 for t in touched)

    def _spat_since(self, t: float, *, unread: bool = False) -> bool:
        """A spit card was laid on the stalemate that began at `t` a frame or more before now (the
        players have called it): one waiting for the others, a card the engine still has nowhere read
        on a spit pile (if only for a frame, not settled yet) laid since `t`, or, not read yet, a touch on a spit
        pile since `t` by the hand of a player who holds spit cards and no stock card lifted, that
        laid no card judged and takes none back, and after which the pile was not read showing the
        engine's top (the hand laid nothing there). With `unread`: only such touches whose pile has
        not been read since (they may have laid nothing: the pile will show)."""
        laid_since = [] if unread else [(code, laid) for code, laid in self._unknown_read.values() if laid > t]
        known = self.state.cards() if laid_since else None
        touched = [] if unread else [when[0] for _, when, _ in self._pending_spit.values()] + [
            laid for code, laid in laid_since if known is not None and not known[parse_card(code)]]
        holding = {lift.player for lift in self._lifted.values()}
        for pile in self._piles:
            read = max(self._seen.get(pile, (-1.0, 0))[0], self._top_read.get(pile, -1.0))
            touched += [touch.t for touch in self._touches.get(pile, ())
                        if touch.t > t and self._free(pile, touch, touch.side) and touch.side not in holding
                        and self.state.spit_count(touch.side) and not self._taking_back(pile, touch)
                        and self._top_read.get(pile, -1.0) <= touch.t and (read <= touch.t) == unread]
        return self._spat_before(touched)

    def _spat_before_own_play(self, t: float) -> list[float]:
        """The touches by which a player whose play on one spit pile dates the stalemate (`t`) laid a card
        the engine has nowhere on the other: their hand was over that pile after it was last read clear
        and before `t`, and the card showed there. A hand lays one card at a time and a player spits only
        at a stalemate, so the play was made sooner than its contact was found (the contact seen may be
        the hand's on its way back from the spit card) and that card is a spit card of this stalemate.
        Not where another player's hand touched that pile since it was read clear (the card may be
        theirs, laid before the stalemate), and only where the play alone made the stalemate (no turn-up dated with it: the card turned may be
        what left the player without a move, their card laid before it a premature spit)."""
        moves = [move for when, move in self._made if when == t]
        plays = [move for move in moves if isinstance(move, Play)] if all(isinstance(move, Play) for move in moves) else []
        known = self.state.cards()
        spat = []
        for move in plays:
            for pile, (code, laid) in self._unknown_read.items():
                touches = self._touches.get(pile, ())
                if pile == move.to or known[parse_card(code)] or any(
                        touch.contact and touch.side != move.player and touch.t > laid for touch in touches):
                    continue  # (another player's hand touched that pile since: the card may be theirs)
                spat += [touch.t for touch in touches if touch.side == move.player and laid < touch.t < t]
        return spat

    def _explained(self, turning: frozenset[str] = frozenset()) -> bool:
        """The table shows nothing the engine does not expect, but for the stock places `turning`
        (a card read turned up there, not settled yet), a spit card already laid, a spit pile
        still under a hand whose last read is older than the play judged there at its touch, and a
        stock place still under a hand not read since a move judged there (`_stale`: what it last
        showed is the card that move took; whatever the hand left there, the engine's position
        has it, a face-down card to turn or a space the stalemate already counts); and no
        card has been in a hand longer than `TOUCH_REACH_S` (the engine may have missed where it went),
        nor is one judged turned up unseen and refused unless its place was read since showing what lay
        under it (the card laid may have been a spit card, the one turned still lying there)."""
        if any(not lift.attempted and self._now[0] - lift.t > TOUCH_REACH_S for lift in self._lifted.values()):
            return False
        for code in self._turned_unread:
            lift = self._lifted.get(code)
            if lift is not None and (self._read_clear.get(lift.zone, -1.0) <= lift.t
                                     or self.readings.get(lift.zone) != self._under(lift.zone)):
                return False
        for zone in self._unexplained() - turning:
            pending = self._pending_spit.get(zone)
            if pending is not None and self.readings.get(zone) == pending[0]:
                continue
            if not self._clear(zone) and (self._unread(zone) or self._stale(zone)):
                continue
            return False
        return True

    def _call_on_first_read(self, read: Mapping[str, str]) -> None:
        """"Spit!" on a face-down stock top read turned up in this frame, before the read settles, as
        its player's hand uncovers it (`_uncovered`): the hand that turned it hid it until now and
        often covers it again on its way to the spit pile, and the other player, who saw it turned,
        may spit before a second read. If the engine, with the card turned up, finds no move on a
        table otherwise explained, the stalemate is called now, dated to the turn, unless a spit card
        was laid since (`_hidden_until`: a turn dated by its card's first sight was made sooner;
        `_hidden_from`: one dated by a touch under a hand that hid the place may have been); the
        engine's reaching that position later calls it no more."""
        s = self.state
        if self._call is not None or s.phase != "play" or s.is_stalemate():
            return
        known = s.cards()
        turned = s
        turning = []
        for zone, seen in read.items():
            if zone in self._owner and seen in CARD_CODES and seen != self.readings.get(zone) \
                    and self._expected(zone) == FACE_DOWN and zone not in self._unread_tops \
                    and not known[parse_card(seen)] and self._uncovered(zone):
                move = TurnUp(self._owner[zone], zone, parse_card(seen))
                if turned.check(move) is None:
                    turned = turned.apply(move)
                    turning.append(zone)
        if not turning or turned == self._called_on or not turned.is_stalemate() \
                or not self._explained(frozenset(turning)):
            return
        dates = [(zone, self._turn_when(self._owner[zone], zone)) for zone in turning]
        when = max((date for _, date in dates), key=lambda w: w[0])
        began = min(min(self._hidden_until(zone, date[0]), self._hidden_from(zone, date[0])) for zone, date in dates)
        if not self._spat_since(began) and not self._spat_since(began, unread=True):
            self._called_on = turned
            self._called_turns = tuple((TurnUp(self._owner[zone], zone, parse_card(read[zone])), date) for zone, date in dates)
            self._called_read = self._now[0]
            self._emit("spit_call", when)

    def _turned_as_first_read(self, laid: float) -> bool:
        """A spit card the engine has nowhere was laid at `laid`, after a "Spit!" called on a turned card's
        first read (`_call_on_first_read`) that the engine has not reached (the card read once, then
        hidden again by the hand): the players confirm what that read showed, and its turn-ups are made
        now, dated as they were then, leaving the stalemate the spit card is laid at. True when they were."""
        turns, self._called_turns = self._called_turns, ()
        if self._called_on is None or not turns or laid <= max(date[0] for _, date in turns) \
                or any(self._clear(move.pile) for move, _ in turns):
            return False  # (a place read clear since shows what was turned there: it is judged from that read)
        state = self.state
        for move, _ in turns:
            if state.check(move) is not None:
                return False
            state = state.apply(move)
        if state != self._called_on:
            return False
        for move, date in turns:
            self._try(move, date)
            self._read_back[move.card.code] = self._called_read  # (its place still shows the face-down card read before: no lift)
        return True

    def _hidden_until(self, zone: str, t: float) -> float:
        """When stock place `zone`, whose card turned up is dated `t`, was last hidden before `t` if
        `t` is the first sight of that card (no hand seen touching or coming over the place within
        reach: an arm over it all along, it was turned before that arm left it), else `t`."""
        if t < self._now[0] and self._seen.get(zone, (-1.0, 0))[0] != t:
            return t
        return max((run[1] for run in self._unsettled_runs.get(zone, ()) if run[1] < t), default=t)

    def _began(self, t: float) -> float:
        """The earliest the stalemate dated `t` began: a turn-up dated `t` by its card's first sight
        was made before its place was last hidden (`_hidden_until`), one dated by a touch under a hand
        that hid its place from its last face-down read on may have been made as that hand came
        (`_hidden_from`)."""
        return min((min(self._hidden_until(move.pile, t), self._hidden_from(move.pile, t)) for when, move in self._made
                    if when == t and isinstance(move, TurnUp)), default=t)

    def _hidden_from(self, zone: str, t: float) -> float:
        """When stock place `zone`, whose card turned up is dated `t`, went under the hand that hid it
        from its last face-down read until that card was read (the hand finder may miss the contact
        that turned it, and date the turn by a later one), else `t`."""
        face_down = self._face_down_read.get(zone, -math.inf)
        shown = self._seen.get(zone, (-math.inf, 0))[0]
        for first, last in self._unsettled_runs.get(zone, ()):
            if face_down < first <= t <= last and shown > t:
                return first
        return t

    def _uncovered(self, zone: str) -> bool:
        """Its player's hand was over stock place `zone` since it was last read with no hand over it, or
        the place was seen changing since (left unread: a card turned by fingers the hand finder did not
        find there): what it shows now is what the hand left (a card misread for a frame where nothing
        moved is not)."""
        clear = self._read_clear.get(zone, -1.0)
        return self._left_unread_at.get(zone, -1.0) > clear or any(
            touch.side == self._owner[zone] and touch.t > clear for touch in self._touches.get(zone, ()))

    def _take_first_read_call(self, state: SpitState) -> bool:
        """Whether a "Spit!" was called on `state` already, from the first read of the card turned
        last (`_call_on_first_read`); that call is then forgotten (the engine has reached its position)."""
        called, self._called_on = self._called_on, None
        self._called_turns = ()
        return called == state

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
        who would be out lets the other spit alone): each player's spit cards, and the cards of
        each stock place not emptied since, are counted as that slap left them, logged as a
        `resync` of the engine's position with those counts."""
        shift, self._spit_shift = self._spit_shift, None
        if shift is None:
            return
        self._respit({p: self.state.spit_count(p) + shift[p] for p in self._players}, OTHER_SLAP, self._stock_shift)

    def _respit(self, spit: dict[str, int], reason: str, more: dict[str, int] | None = None) -> bool:
        """The engine's position with each player holding `spit` spit cards (and `more` cards in
        each stock place that still holds some), logged as a `resync` with `reason`; False if that
        is no position of the game."""
        s = self.state
        more = more or {}
        stocks = {p: [(len(s.pile(zone)) + more.get(zone, 0) if s.pile(zone) else 0, getattr(s.top(zone), "code", None))
                      for zone in names] for p, names in zip(self._players, self.rules.stock_names)}
        if any(count < 0 or (count == 0 and top is not None) for places in stocks.values() for count, top in places):
            return False
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
        premature once that move is made (it existed): a play onto a pile that, when last read before
        the spit card, showed the engine's top (`_showed_top`; else the engine has lost that pile, and
        the play may have gone onto a card laid since, such as the other spit card), or a turn-up dated
        by its player's first touch on the place since the move before it there, later than the spit
        card (the card lay face down until then), or one dated about when the spit card landed whose
        card plays there (`_turned_playable`; where that turn was found while the spit card still lay
        there, the move is that card's play: `_turned_as_laid`), or once another move that the position
        when the card landed allowed is made after it (`_made_after`); forgotten after `DOUBT_S`."""
        for key, (side, when, exc) in list(self._doubted.items()):
            if key in self._unsure and key in self._flagged and self.readings.get(key[0]) == key[1]:
                continue  # still lying there: judged where it lies
            if self._now[0] - when[0] > DOUBT_S or self.state.phase != "play":
                del self._doubted[key]
            elif (isinstance(exc.move, Play) and self._played_since(exc.move, when[0])
                  and self._showed_top(exc.move.to, when[0])) \
                    or (isinstance(exc.move, TurnUp) and (self._turned_after(exc.move, when[0])
                                                          or self._turned_playable(exc.move, when[0]))) \
                    or (isinstance(exc.move, Play) and self._turned_as_laid(exc.move, when[0])):
                del self._doubted[key]
                self._emit("premature_spit", when, player=side, move=exc.move.describe(), reason=str(exc))
            elif (made := self._made_after(when[0], side)) is not None:
                del self._doubted[key]  # (the move named is the one made: the engine's may not exist as it now knows the table)
                self._emit("premature_spit", when, player=side, move=made.describe(), reason=f"no Spit yet: {made.describe()}")

    def _made_after(self, t: float, side: str) -> SpitMove | None:
        """A play or a move into a space found since a spit card of `side` landed at `t`, dated by its
        touch more than `SPIT_LEAD_S` after it (made after the card, as `_landed_on` leaves it out),
        could be made on the engine's position then (a play onto a pile that showed the engine's top
        when last read before `t`; a move into a space on counts no re-read guessed): whichever move
        the engine found, one existed when the card landed, since a player made it (that move; None if
        none). Never on a position read again from the table less than `RESYNC_S` before `t` or since."""
        landed = None if self._resynced_at > t - RESYNC_S else self._landed_on(t, side)
        if landed is None or landed.phase != "play":
            return None
        return next((made for when, made in self._made if isinstance(made, (Play, MoveToSpace))
                     and when > t + SPIT_LEAD_S and landed.check(made) is None
                     and (self._showed_top(made.to, t) if isinstance(made, Play) else self._counts_known)), None)

    def _played_since(self, move: Play, t: float) -> bool:
        """The play `move` was made at `t` (within a frame) or later."""
        return any(when >= t - self.frame_interval and self._same(move, made) for when, made in self._made)

    def _turned_around(self, player: str, t: float) -> bool:
        """A turn-up of `player`, dated by their touch before `t`, whose card still lies in its
        place and was touched by their hand again after `t`, or was first read there after `t`: the
        card read there may have been turned at that later touch (or at any time before it was read:
        a turn is dated by the first touch of the hand that hid it), and the card turned first laid
        on a spit pile at `t`."""
        for when, made in self._made:
            if isinstance(made, TurnUp) and made.player == player and when < t and made.card is not None \
                    and self.readings.get(made.pile) == made.card.code and (any(
                        touch.contact and touch.side == player and touch.t > t
                        for touch in self._touches.get(made.pile, ())) or self._seen[made.pile][0] > t):
                return True
        return False

    def _read_turned(self, move: SpitMove, code: str) -> bool:
        """The move that existed when the card `code`, one the engine has nowhere, landed on a spit pile
        is a turn-up of a stock place, and `code` was last read in that place (if only for a frame) since
        the last move there: it is the card turned there (spit cards come from the hand, never from a
        stock place), so it is no premature spit card."""
        read = self._read_in_place.get(code)
        return isinstance(move, TurnUp) and read is not None and read[1] == move.pile \
            and read[0] > self._moved.get(move.pile, -math.inf)

    def _turned_under_arm(self, move: SpitMove, player: str, t: float) -> bool:
        """The move that existed when `player`'s card, one the engine has nowhere, landed on a spit pile
        at `t` is their turn-up of a place their hand was over (touching it or not) since the last move
        there and less than `TOUCH_REACH_S` before `t`, where the engine has more than one card: the
        hand may have turned the top there and taken it, the card under it face down looking the same
        as the card turned did, and the card laid be that one, so it is no premature spit card."""
        if not isinstance(move, TurnUp) or move.player != player or len(self.state.pile(move.pile)) < 2:
            return False
        since = max(self._moved.get(move.pile, -math.inf), t - TOUCH_REACH_S)
        return any(touch.side == player and since < touch.t < t for touch in self._touches.get(move.pile, ()))

    def _hidden_under_arm(self, player: str, t: float) -> bool:
        """A face-down place of `player`'s where the engine has more than one card lay under their hand from
        before `t` until after it (the last hand that came over it theirs, there still at `t`): the hand
        may have turned its top and laid it at `t`, the card under it looking the same, so a card of
        theirs laid then is no premature spit card, whatever move the engine finds."""
        for zone in self.rules.stock_names[self.rules.player_index[player]]:
            touches = self._touches.get(zone, ())
            if len(self.state.pile(zone)) >= 2 and not self.state.face_up(zone) and touches \
                    and touches[-1].side == player and touches[-1].t < t <= self._covered.get(zone, -math.inf):
                return True
        return False

    def _lifted_under_arm(self, player: str, t: float) -> bool:
        """A stock place of `player`'s whose face-up top their hand lifted (`_lifted`: not seen landing or
        coming back), where the engine has more than one card, lay under their hand from before `t` until
        after it (as `_hidden_under_arm`): one hand holds one card, so the hand that laid a card at `t` put
        the lifted one down unseen first (a move into a space under the arm) and may have turned the card
        under it and laid that: a card of theirs laid then is no premature spit card."""
        for lift in self._lifted.values():
            touches, covered = self._touches.get(lift.zone, ()), self._covered.get(lift.zone, -math.inf)
            if lift.player == player and len(self.state.pile(lift.zone)) >= 2 and touches \
                    and touches[-1].side == player and touches[-1].t < t <= covered:
                return True
        return False

    def _turned_after(self, move: TurnUp, t: float) -> bool:
        """The turn-up `move` was made, dated more than `SPIT_LEAD_S` after `t` by a touch of its
        player's hand seen on the place (its first since the move before it there: the card lay
        face down at `t`), unless the place was last read face down before `t` and its player's
        hand laid a card on a spit pile that no play or refusal explains between that read and the
        turn (`_spat_before_turning`)."""
        for when, made in self._made:
            if when > t + SPIT_LEAD_S and self._same(move, made):
                return any(touch.contact and touch.side == move.player and when <= touch.t <= when + TURN_S
                           for touch in self._touches.get(move.pile, ())) \
                    and not self._spat_before_turning(move, t, when)
        return False

    def _turned_playable(self, move: TurnUp, t: float) -> bool:
        """The turn-up `move` was found since a spit card laid at `t`, dated before `t` or less than
        `SPIT_LEAD_S` after it (so the card may have been turned before the spit card landed), and in
        the engine's position at `t` (with the moves found since) that card, face up there, plays on a
        spit pile that showed the engine's top when last read before `t`, the card read in its place
        since it was turned or that play made at `t` or later: a move existed at `t` either way (the
        play of that card if it was turned before, the turn-up if after), so the spit card was
        premature, though `_turned_after` cannot show the card lay face down at `t`."""
        for when, made in self._made:
            if not (when <= t + SPIT_LEAD_S and self._same(move, made) and made.card is not None):
                continue
            read = self._read_in_place.get(made.card.code)
            seen = read is not None and read[1] == move.pile and read[0] >= when
            state = self._state_at(t + SPIT_LEAD_S)
            if state.phase == "play" and any(
                    state.check(play := Play(move.player, made.card, move.pile, pile)) is None
                    and self._showed_top(pile, t) and (seen or self._played_since(play, t))
                    for pile in self._piles):
                return True
        return False

    def _turned_as_laid(self, move: Play, t: float) -> bool:
        """The play `move`, the move the engine found when a spit card landed at `t`, is of a card
        turned up in its place, that turn dated before `t` (or less than `SPIT_LEAD_S` after it), and
        first read there after `t` (its place under its player's hand from before the turn until after
        the spit card landed): the camera cannot order the turn and the spit card, but a move existed
        either way, the turn-up if the card still lay face down, its play if it was face up
        (`_turned_playable`, which also asks that the card plays on a pile that showed the engine's top)."""
        first = self._first_read.get(move.source)
        return first is not None and first[0] == move.card.code and first[1] > t \
            and self._turned_playable(TurnUp(move.player, move.source, move.card), t)

    def _spat_before_turning(self, move: TurnUp, t: float, turned: float) -> bool:
        """The player of the turn-up `move`, dated at `turned`, laid a card on a spit pile that no play
        or refusal explains after their place was last read face down, and that read came before `t`:
        the place, hidden under their hand since, may have been turned first, unseen (a contact the hand
        finder missed), and that card laid as a spit card at the stalemate it left (or be the card
        turned, misread): when the turn was made is not known, so a spit card laid at `t` is not shown
        premature by it."""
        read = self._face_down_read.get(move.pile, -math.inf)
        return read < t and any(self._free(pile, touch, move.player) and read < touch.t <= turned
                                for pile in self._piles for touch in self._touches.get(pile, ()))

    def _sure_of(self, move: SpitMove, t: float, spit: tuple[str, Card, str]) -> bool:
        """The move the engine finds at `t`, when `spit` (pile, card, player) was laid, existed: never
        on a position read again from the table less than `RESYNC_S` before `t` or since (a play
        found after a re-read does not show the position before it); a play made since onto a pile
        that showed the engine's top when last read before `t` (`_showed_top`: where it did not, the
        play may have gone onto a card laid since, such as the other spit card), another move the
        position at `t` allowed made after it (`_made_after`), or it rests
        on what the camera sees (the places it uses were settled then,
        or, a spit pile, showed the engine's top when last read before `t`, with no hand laying an
        unjudged card there since; no stock place shows what no move explains; and a move into a
        space, which counts only when it uncovers a face-down card, is not judged on counts
        guessed by a re-read)."""
        if self._resynced_at > t - RESYNC_S:
            return False  # the position was read again from the table just before or since: what it guessed may be wrong
        if isinstance(move, Play) and self._played_since(move, t) and self._showed_top(move.to, t):
            return True  # the play was made since, onto a pile the engine had right: it existed
        if self._made_after(t, spit[2]) is not None:
            return True  # another move was made since that the position allowed: it existed
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
            and all(self._showed_top(zone, t) for zone in zones if zone in self.rules.pile_index) \
            and not (self._unexplained() - set(self._piles))

    def _showed_top(self, pile: str, t: float) -> bool:
        """Spit pile `pile`, when last read before `t`, showed the engine's top there then or before a
        move judged between that read and `t` (or no read before `t` is remembered): a move onto a
        pile last seen showing a card the engine never had there is not sure to exist."""
        reads = [(seen, when) for seen, when in self._pile_reads.get(pile, ()) if when < t]
        if not reads:
            return True
        seen, since = reads[-1]
        dates = {since} | {when for when, _ in self._history if since <= when <= t}
        return any(self._expected_in(self._state_at(date, before=before), pile) == seen
                   for date in dates for before in (False, True))

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

    def _spat_at_hidden_turn(self, turned: float) -> None:
        """The turn-up dated `turned` left nobody a move, and spit cards were laid on the spit piles
        after it while the engine, not knowing the card turned (its place under its player's arm until
        then), still found that turn-up to make: they were the players' spit at the stalemate it left
        (laid less than `SPIT_ROUND_S` before now, one on each pile the spit needs, cards the engine
        has nowhere, by players holding spit cards): they wait as spit cards laid at a stalemate do, and
        make the spit now if one lies on each pile it needs (dated by the later card)."""
        known = self.state.cards()
        laid = {pile: item for pile, item in self._spat_early.items()
                if turned < item[1][0] and self._now[0] - item[1][0] <= SPIT_ROUND_S
                and not known[parse_card(item[0])] and self.state.spit_count(item[2])}
        self._spat_early = {}
        if laid:
            self._pending_spit = {**laid, **self._pending_spit}
            self._spit()

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
            self._spat_early = {}
            for pile in piles:  # a spit card doubted when it landed is judged now: no hand there takes it back
                key = (pile, pending[pile][0])
                self._flagged.pop(key, None)
                self._unsure.discard(key)
                self._doubted.pop(key, None)
            self._apply(move, when, contact=contact)
            self._solo = {pile: pending[pile] for pile in piles} if len(piles) == 1 else None
            return True
        return False
