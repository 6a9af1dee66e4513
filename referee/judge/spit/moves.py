"""Explaining a stock place's or spit pile's new reading by moves: plays, turn-ups, moves to a space, races."""

from __future__ import annotations

import math
from collections.abc import Callable

from referee.cards import FACE_DOWN, Card, parse_card
from referee.errors import IllegalMove
from referee.judge.spit.config import (
    FETCH_S,
    TAKE_BACK_S,
    TIE_WAIT_S,
    TOUCH_REACH_S,
    TURN_S,
    Lift,
    When,
)
from referee.judge.spit.touches import made_by
from referee.observations import CARD_CODES, EMPTY
from referee.rules.spit import (
    MoveToSpace,
    Play,
    PrematureSpit,
    Refill,
    Spit,
    StackEqual,
    TurnUp,
)
from referee.tracker import Touch, ZoneChange


class TableMoves:
    """The moves that explain one zone's new reading (`_stock`, `_pile`). A part of `SpitReferee`, which holds the state."""

    def _stock(self, zone: str, seen: str) -> bool:
        """Explains `seen`, read settled in stock place `zone` where the engine has another card: its top
        lifted, a face-down top turned up, a card moved to a space or stacked, and a card the engine has
        nowhere, turned up unseen on a face-down top of its player's that their hand touched (or, no such
        touch seen and no re-read since the deal, one their hand was only seen over: the hand finder may
        miss the contact of a hand turning a card) and moved there. True when the engine's position changed."""
        s = self.state
        owner = self._owner[zone]
        top = s.top(zone)
        when = self._when(zone, owner, self._seen[zone])
        turned_under = top is not None and seen in CARD_CODES and self._under(zone) == FACE_DOWN \
            and not s.cards()[parse_card(seen)] and self._stock_top_of(parse_card(seen)) is None
        reached: list[float] = []
        if top is not None and (seen == self._under(zone) or turned_under):
            came = self._hand_came(zone, owner, when[0])
            shown = self._shown_until.get(zone, came)
            reached = [touch.t for touch in self._touches.get(zone, ()) if touch.side == owner and touch.t > shown]
        if top is not None and (seen == self._under(zone) or (turned_under and reached)):
            # lifted; or (its player's hand there since) lifted and the face-down card under it turned up since:
            # its turn-up waits for it to land
            if top.code not in self._lifted and self._read_back.get(top.code, -math.inf) < self._seen[zone][0]:
                # it left at any time since the place was last read showing it (an arm reaching past
                # a place hides it long before and after the hand takes its card), not before its
                # player's hand was first seen there since (the card leaves in that hand)
                gone = max(shown, self._seen[zone][0] - TOUCH_REACH_S, min(reached, default=-math.inf))
                if self._turned_away(owner, came):
                    gone = came  # its hand may hold a card turned unseen too: its touches are that card's
                self._lifted[top.code] = Lift(owner, zone, min(came, gone))
                self._laid_last_unseen(top, zone, owner, shown)
            return False
        if not self._counts_known and seen in (EMPTY, FACE_DOWN) and self._recounted(zone, seen):
            return True
        if seen not in CARD_CODES:
            return False
        card = parse_card(seen)
        expected = self._expected(zone)
        if expected == FACE_DOWN and zone in self._unread_tops:
            if s.cards()[card]:
                return False  # read as a card lying elsewhere (`_shown_twice`): doubted until read otherwise
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
        if source is not None and source[1] != zone and self.readings.get(source[1]) == seen \
                and self._read_clear.get(source[1], -math.inf) >= self._seen[zone][0]:
            return False  # read in two places at once (freshly there too): it has not left the one it still shows in
        if source is not None and source[0] == owner and source[1] != zone:
            if expected == EMPTY:
                return self._try(MoveToSpace(owner, card, source[1], zone), self._laid_on_space(zone, owner, when))
            move = StackEqual(owner, card, source[1], zone)
            reason = s.check(move)
            if reason is None:
                self._apply(move, when)
                self._lifted.pop(card.code, None)
                return True
            if (zone, seen) not in self._flagged:
                # (a top the camera never read in a stock place, turned unseen, is a guess: no call on it)
                called = not self._emptied_unseen(zone) and self._expected(zone) in self._stock_read
                if called and self._top_may_be_played(owner, zone):  # waits for that pile, looked at every frame
                    self._deferred = True
                    self._look_again = min(self._look_again, self._now[0])
                    return False
                self._flagged[zone, seen] = (owner, when[0])
                if called:
                    self._emit("illegal_play", when, player=owner, card=seen, to=zone, reason=reason,
                               **{"from": source[1]})
            return False
        if source is None and not s.cards()[card]:
            turned = self._turned_unseen(owner, when[0])
            if turned is None and not self._deferred and self._counts_known:
                # no contact seen turning it: a hand only seen over a face-down top will do, while every card the
                # engine lacks is one still face down (after a re-read, a card then in a hand is lacking too)
                turned = self._turned_unseen(owner, when[0], covered=True)
            if turned is None and not self._deferred:
                turned = self._seen_turned(owner, card, zone)
            if turned is not None and expected != EMPTY and not self._stacks(owner, card, turned[0], zone):
                return False  # its top left unseen and the card was turned under it: waits for that top to be found
            if turned is not None and self._try(TurnUp(owner, turned[0], card), turned[1]):
                if expected == EMPTY:
                    self._try(MoveToSpace(owner, card, turned[0], zone), when)
                return True
            if self._deferred:
                return False
            if expected == EMPTY and self.rules.refilled_singles:
                return self._try(Refill(owner, zone, card), when)
        return False

    def _seen_turned(self, player: str, card: Card, zone: str) -> tuple[str, When] | None:
        """`card`, one the engine has nowhere, read in `player`'s stock place `zone`, was read before (if only for
        a frame, `_read_turned_up`) in another place of theirs whose top the engine has face down, after the last
        move there: the camera saw it turned up there (the hand turning it unseen), so it was turned there, dated
        by that read (the turn came before it). That place and frame, else None."""
        read = self._read_turned_up.get(card.code)
        if read is None or read[0] == zone or self._owner.get(read[0]) != player \
                or self._expected(read[0]) != FACE_DOWN or read[1][0] <= self._moved.get(read[0], -math.inf):
            return None
        return read

    def _stacks(self, player: str, card: Card, turned: str, zone: str) -> bool:
        """`card`, turned up on `player`'s face-down top `turned`, may be stacked on the face-up top of their
        stock place `zone` (the rules allow it there). A card the engine has nowhere, read on a face-up top,
        is taken for one turned elsewhere and moved there only so: a move the rules forbid is no explanation
        of a card found there, the top there may have left unseen (under the arm, played on a pile the camera
        has not read since) and the card been turned on the face-down card under it."""
        move = TurnUp(player, turned, card)
        stack = StackEqual(player, card, turned, zone)
        return self.state.check(move) is None and self.state.apply(move).check(stack) is None

    def _turned(self, player: str, zone: str, card: Card, when: When) -> bool:
        """A face-down top seen face up: turned at the player's first touch since the last move
        there that may have turned it (`_turn_dated`); if their hand touched a spit pile between
        that and their last touch on the place, the card went there and came back (judged as a
        play once that pile has settled); so too where the card was read on a spit pile after their
        contact there and before it was read in its place (`_read_on_pile_before`)."""
        touches = self._contacts_since_move(player, zone, when[0])
        turned = self._turn_dated(player, zone, touches, when)
        laid = self._read_on_pile_before(player, zone, card, turned)
        if laid is not None:
            turned = laid[0]
        if len(touches) > 1 and self._turned_before(player, zone, touches):
            return True
        if len(touches) <= 1 and self._turned_before_under_arm(player, zone, card):
            return True
        if len(touches) > 1 and self._covered_after_touch(player, touches):
            self._deferred = True
            return False
        if not self._try(TurnUp(player, zone, card), turned):
            return False
        if laid is not None:
            self._returns.append((card, Lift(player, zone, turned[0]), laid[1], (laid[2].t, laid[2].frame)))
            return True
        for pile in self._piles:
            for touch in self._touches.get(pile, ()):
                if self._free(pile, touch, player) and turned[0] < touch.t < when[0] and not self._taking_back(pile, touch):
                    self._returns.append((card, Lift(player, zone, turned[0]), pile, (touch.t, touch.frame)))
                    return True
        return True

    def _read_on_pile_before(self, player: str, zone: str, card: Card, turned: When) -> tuple[When, str, Touch] | None:
        """`card`, seen turned on `player`'s face-down place `zone` and dated turned at `turned`
        (`_turn_dated`), was read on a spit pile before it was read there, after a contact of their hand
        with that pile (laying no card judged) made since the place was last read face down (or since the
        last move there): it was turned before that contact, laid there and came back, so it is judged at
        that contact (`_turned`), though that came after the hand's last touch on
        the place (the hand over the place all along). Where `turned` is not before that contact, the turn
        is dated at their hand's first touch or cover of the place since then, before that contact, else
        when the place was last read face down. The date, the pile and the contact; None where no such read
        or contact was seen."""
        since = max(self._moved.get(zone, 0.0), self._face_down_read.get(zone, -math.inf))
        for pile in self._piles:
            read = [t for code, t in self._pile_reads.get(pile, ()) if code == card.code and since < t < self._seen[zone][0]]
            laid = [touch for touch in self._touches.get(pile, ()) if touch.contact and touch.side == player
                    and since < touch.t < min(read, default=-math.inf) and self._free(pile, touch, player)
                    and not self._taking_back(pile, touch)]
            if not laid:
                continue
            if turned[0] < laid[-1].t:
                return turned, pile, laid[-1]
            turning = [touch for touch in self._touches.get(zone, ()) if touch.side == player and since < touch.t < laid[-1].t]
            return (turning[0].t, turning[0].frame) if turning else (since, self._frame_at(since)), pile, laid[-1]
        return None

    def _turned_before(self, player: str, zone: str, touches: list[Touch]) -> bool:
        """Between the player's touches on a face-down place, their hand laid an unknown card on a
        spit pile: that card was turned there first and played (the card now seen turned after); not
        at touches that laid a card taken back since and took it back (`_took_back`: the unknown card
        lay under it), nor at touches that laid a card judged already (`_free`: one hand lays one card
        at a time), nor where another player's hand touched the pile after them and the unknown card
        was read there first after that (`_rival_laid_after`: the card on top is the later hand's)."""
        for pile in self._piles:
            shown = self.readings.get(pile)
            if shown not in CARD_CODES or shown == self._expected(pile) or self.state.cards()[parse_card(shown)]:
                continue
            took = self._took_back.get(pile)  # its touches laid and took back a card
            laid = [t for t in self._touches.get(pile, ()) if self._free(pile, t, player)
                    and touches[0].t < t.t < touches[-1].t and not made_by(took, t)]
            if not laid or self._rival_laid_after(pile, player, laid[0].t, took):
                continue
            first = parse_card(shown)
            if self._try(TurnUp(player, zone, first), (touches[0].t, touches[0].frame)):
                self._attempt(player, first, zone, pile, (laid[0].t, laid[0].frame), visible=True)
                return True
        return False

    def _turned_before_under_arm(self, player: str, zone: str, card: Card) -> bool:
        """`player`'s face-down place `zone`, hidden under their arm from before their hand laid an unknown
        card on a spit pile (no contact seen on the place to tell the turns apart, `_turned_before`) until it
        showed `card` (first read there now), is the one face-down top of theirs their hand touched or was
        over before that laying: that card was turned there first and played, and `card` was turned after
        it (a card is turned only under its player's hand, and the places their arm never reached show the
        cards they showed). Only where the card laid plays on the pile as turned there, and `card` turned
        leaves a move (else the card laid may be a spit card, laid at the stalemate that turn left)."""
        for pile in self._piles:
            shown = self.readings.get(pile)
            if shown not in CARD_CODES or shown == self._expected(pile) or self.state.cards()[parse_card(shown)]:
                continue
            read = self._seen[zone][0]
            hidden = [run for run in self._unsettled_runs.get(zone, ()) if run[1] >= read - 2 * self.frame_interval]
            if not hidden:
                continue
            laid = [t for t in self._touches.get(pile, ()) if self._free(pile, t, player) and hidden[0][0] < t.t < read]
            if not laid or self._rival_laid_after(pile, player, laid[0].t, self._took_back.get(pile)):
                continue
            touched = {z: ts for z, ts in self._face_down_touches(player, laid[0].t, covered=True).items() if ts}
            first = parse_card(shown)
            after = TurnUp(player, zone, card)
            if list(touched) != [zone] or not self._fits(player, zone, first, pile) \
                    or self.state.check(after) is not None or self.state.apply(after).is_stalemate():
                continue
            turning = touched[zone][0]
            if self._try(TurnUp(player, zone, first), (turning.t, turning.frame)):
                self._attempt(player, first, zone, pile, (laid[0].t, laid[0].frame), visible=True)
                return True
        return False

    def _rival_laid_after(self, pile: str, player: str, t: float, took: tuple[str, float, float] | None) -> bool:
        """Another player's hand touched `pile` after `t`, and the pile was not read from that touch until
        its shown card was first read; the touch laid no card judged and took none back (`took`): the card
        on top is that later hand's, not `player`'s."""
        shown = self._seen[pile][0]
        return any(touch.contact and touch.side != player and t < touch.t < shown
                   and self._free(pile, touch, touch.side) and not made_by(took, touch)
                   and not any(touch.t < read < shown for _, read in self._pile_reads.get(pile, ()))
                   for touch in self._touches.get(pile, ()))

    def _covered_after_touch(self, player: str, touches: list[Touch]) -> bool:
        """Between the player's touches on a face-down place, their hand touched a spit pile, laying no
        card judged, and that pile shows a card the engine does not have on top there, laid by
        another hand since, less than `TAKE_BACK_S` ago: the card turned at the first touch may lie
        under it, and the card now seen was turned after. Waits for that card to be taken back
        (`_turned_before` then finds the card under it), and no longer than a refused card stays,
        instead of taking the card now seen for one that went there and came back."""
        for pile in self._piles:
            shown = self.readings.get(pile)
            if shown not in CARD_CODES or shown == self._expected(pile):
                continue
            laid = [t.t for t in self._touches.get(pile, ()) if self._free(pile, t, player)
                    and touches[0].t < t.t < touches[-1].t and not self._taking_back(pile, t)]
            if laid and any(t.contact and t.side != player and t.t > laid[0] and self._now[0] - t.t < TAKE_BACK_S
                            for t in self._touches.get(pile, ())):
                return True
        return False

    def _only_face_down(self, player: str, card: Card, pile: str, laid: When) -> tuple[str, When] | None:
        """The one face-down stock top of `player`, whose hand laid the unknown `card` on `pile` at
        `laid`, if `card` turned up there could be played on `pile`: a card turned and played with
        the hand unseen over its place (dated by the laying touch), not a spit card. While that place
        shows a change not read yet, was not read face down since `laid`, and turning it is the only
        move on the table, it is waited for (unless the card is about to be covered): it may show the
        card turned there, and `card` be a spit card laid at the stalemate that turn left
        (`_turn_or_stalemate`); a hand hiding the place again before it was read ends the wait
        (`_hidden_again`)."""
        s = self.state
        hidden = [zone for zone in self.rules.stock_names[self.rules.player_index[player]]
                  if s.pile(zone) and not s.face_up(zone)]
        if len(hidden) != 1:
            return None
        came_back = self._waited.get(hidden[0]) == card.code and self._hidden_again(hidden[0])
        if not (self._clear(hidden[0]) or came_back):
            return None
        if self._untouched_since(hidden[0], laid[0] - TOUCH_REACH_S):
            return None
        if not came_back and hidden[0] in self._left_unread and self._face_down_read.get(hidden[0], -math.inf) < laid[0] \
                and self._now[0] - self._seen[pile][0] < TURN_S and not self._hurried \
                and self._turn_or_stalemate(hidden[0], pile):
            self._waited[hidden[0]] = card.code
            self._deferred = True
            self._look_again = min(self._look_again, self._seen[pile][0] + TURN_S)
            return None
        self._waited.pop(hidden[0], None)
        move = TurnUp(player, hidden[0], card)
        if s.check(move) is not None or s.apply(move).check(Play(player, card, hidden[0], pile)) is not None:
            return None
        return hidden[0], laid

    def _untouched_since(self, zone: str, t: float) -> bool:
        """Stock place `zone` was read settled in every frame since `t` (no hand over it, nothing
        unread) and no hand was seen touching it: nothing was turned there since, so a card laid from
        a hand since is no card turned there (the place may just lie under its player's other cards)."""
        return not any(last >= t for _, last in self._unsettled_runs.get(zone, ())) \
            and not any(touch.t >= t for touch in self._touches.get(zone, ()))

    def _hidden_again(self, zone: str) -> bool:
        """A card laid waited for face-down stock top `zone` to be read (`_waited`), and a hand hides it
        again before it was: the wait is over, the card judged as it would have been without it."""
        return zone in self._waited and not self._clear(zone) and zone not in self._read_now | self._left_unread

    def _turn_or_stalemate(self, zone: str, pile: str) -> bool:
        """Turning up face-down stock top `zone` is the only move the engine finds, and the table shows
        nothing else it does not expect but for cards it has nowhere on the spit piles (`pile`'s, and
        maybe another spit card): whatever card that turn shows, the players may be at a stalemate
        and lay spit cards."""
        known = self.state.cards()
        if any(zone_ not in self._piles or self.readings[zone_] not in CARD_CODES or known[parse_card(self.readings[zone_])]
               for zone_ in self._unexplained() - {zone, pile}):
            return False  # a stock card the engine lost track of: its position is not the table's
        return all(isinstance(move, TurnUp) and move.pile == zone for move in self.state.useful_moves())

    def _spit_or_turned(self, player: str, zone: str, card: Card, pile: str) -> bool:
        """`card`, laid by `player` on `pile`, taken for the card turned unseen on their face-down top `zone`,
        would be refused there, and that turn leaves no move (a stalemate), while the place is not read
        since (under a hand, or changed and not read yet): the card turned may lie there and `card` be a
        spit card laid at that stalemate, so the place is waited for before any call."""
        move = TurnUp(player, zone, card)
        return (not self._clear(zone) or zone in self._left_unread) and not self._fits(player, zone, card, pile) \
            and self.state.check(move) is None and self.state.apply(move).is_stalemate()

    def _turn_unread(self, zone: str, pile: str, laid: When) -> bool:
        """Face-down stock top `zone`, taken for the place the card laid on `pile` at `laid` was turned
        from, is not read since (under a hand, or changed and not read yet), was not read face down since
        `laid`, the card was first read on the pile less than `TURN_S` ago, and turning it is the only
        move (`_turn_or_stalemate`): the place may still show the card turned there, and the card laid be
        a spit card laid at the stalemate that turn left, so the place is waited for (for a place found by
        its player's touch: `_only_face_down` waits for the one found otherwise), and looked at again when
        `TURN_S` is up though nothing changed (`_look_again`)."""
        waits = (not self._clear(zone) or zone in self._left_unread) \
            and self._read_clear.get(zone, -math.inf) < laid[0] \
            and self._now[0] - self._seen[pile][0] < TURN_S and self._turn_or_stalemate(zone, pile)
        if waits:
            self._look_again = min(self._look_again, self._seen[pile][0] + TURN_S)
        return waits

    def _fits(self, player: str, zone: str, card: Card, pile: str) -> bool:
        """`card`, turned up on `player`'s face-down top `zone`, can be played on `pile`."""
        move = TurnUp(player, zone, card)
        return self.state.check(move) is None and self.state.apply(move).check(Play(player, card, zone, pile)) is None

    def _turned_unseen(self, player: str, before: float, *, covered: bool = False,
                       only: bool = False, laid: tuple[Card, str] | None = None) -> tuple[str, When] | None:
        """A face-down stock top of `player` their hand touched (since the last move there)
        before `before` (with `covered`, one it was only seen over: the hand finder may miss the
        contact of a hand turning a card): a card turned up and taken away before it could be
        read. The zone and the first such touch that may have turned it (`_turned_nothing`; else the
        first), for the zone touched last; None (and the
        referee waits) while such a place is not settled, unless (`only`: no other hand at the
        pile) the card was turned there and nowhere else (`_turned_only_here`; `laid`: the card
        and the pile it was laid on).
        Where some face-down place was touched so (without `covered`, by a contact), one under the
        hand but not touched does not hold the verdict up: what it shows once read cannot make it
        a place the card was turned on (it was not touched), so it is not waited for; nor does a
        touched one read since that touch (`_read_since_touched`).
        Of the places touched, one read empty since (`_emptied_by_turn`: its one card gone) is the one,
        if it is the only such place, over places touched later."""
        best: tuple[str, When] | None = None
        latest = -1.0
        touches = self._face_down_touches(player, before, covered=covered)
        hidden = list(touches)
        touched_places = [zone for zone in hidden if touches[zone]]
        emptied = [zone for zone in touched_places if self._emptied_by_turn(zone, touches[zone])]
        for zone in hidden:
            touched = touches[zone]
            if not self._clear(zone) and not self._hurried and not self._hidden_again(zone) \
                    and not self._read_since_touched(zone, touched) \
                    and not (only and touched and self._turned_only_here(player, zone, hidden, touched_places, laid, before)) \
                    and (touched or covered or not touched_places):
                self._deferred = True  # the card may still show there once the hand has gone
                return None
            if touched and touched[-1].t > latest and (len(emptied) != 1 or emptied == [zone]):
                latest = touched[-1].t
                turning = next((touch for touch in touched if not self._turned_nothing(player, zone, touch.t)),
                               touched[0])
                best = (zone, (turning.t, turning.frame))
        return best

    def _read_since_touched(self, zone: str, touched: list[Touch]) -> bool:
        """Face-down stock top `zone`, touched (`touched`: the touches that may have turned the card), was
        read settled with no hand over it after the last of them began: what the touch left there was seen
        (a card turned and left on the place is called as turned up; one read face down shows that the
        card turned is gone), so a hand hiding the place again does not make the card laid wait for it to
        be read once more."""
        return bool(touched) and self._read_clear.get(zone, -math.inf) > touched[-1].t

    def _emptied_by_turn(self, zone: str, touched: list[Touch]) -> bool:
        """Face-down stock top `zone`, the one card the engine has there, touched by its player's hand
        (`touched`), shows empty, settled with no hand over it, a reading made since the last of those
        touches began (read then, or settling since the place was last hidden after it): its card left the
        place, and a face-down card leaves its place only turned up in its player's hand, so a card of
        theirs the engine has nowhere, laid since, is that one rather than the top of a place touched
        later that may still lie face down there."""
        return len(self.state.pile(zone)) == 1 and self._settled.get(zone) == EMPTY and self._clear(zone) \
            and (self._read_since_touched(zone, touched) or self._covered.get(zone, -math.inf) >= touched[-1].t)

    def _turned_only_here(self, player: str, zone: str, hidden: list[str], touched: list[str],
                          laid: tuple[Card, str] | None, before: float) -> bool:
        """Face-down top `zone` of `player`'s, touched by their hand (no other hand at the pile), is where the
        card they laid at `before` was turned, without waiting for the place to be read: it is their one
        face-down top; or it is the one of them their hand touched (`touched`), the card (`laid`: the card and
        the pile) plays on that pile as turned there, and no other player's hand came to the pile less than
        the race window before it (or within a frame after), whose card it could be or lie on."""
        if len(hidden) == 1:
            return True
        if laid is None or touched != [zone] or not self._fits(player, zone, *laid):
            return False
        return not any(touch.side != player and before - self.config.race_window_s < touch.t < before + self._tie_s
                       for touch in self._touches.get(laid[1], ()))

    def _covering(self, change: ZoneChange) -> None:
        """Spit pile `change.zone` shows a card unknown to the engine, waiting for a face-down place of
        its player to be read (`_turned_unseen`: the place still under a hand), and another player's
        hand, touching the pile since (if only in the same frame as its own player's hand), lays a card
        on top of it (`change`), or its own player's hand lays another card unknown to the engine on it
        (turned unseen too), or one of its face-up stock tops (no other hand came over the pile since
        the race window before the first, whose card it could be uncovering): that card is never to be
        read again, so it is judged now on what is known, a place its player's hand touched (or was
        over) before it was laid, still unread, counting as the one it was turned on where the card
        plays on the pile; only the places of the player whose hand was seen laying it count (judged
        in a hurry, a place of another player's is too weak a guess)."""
        pile = change.zone
        seen = self.readings.get(pile)
        if self.state.phase != "play" or seen not in CARD_CODES or change.after not in CARD_CODES \
                or seen == self._expected(pile) or change.after == self._expected(pile) \
                or (pile, seen) in self._flagged or pile in self._pending_spit:
            return
        card = parse_card(seen)
        if self.state.cards()[card] or self._stock_top_of(card) is not None:
            return
        laid = self._last_touch(pile, self._seen[pile])
        covering = [touch for touch in self._touches.get(pile, ())
                    if touch.contact and self._seen[pile][0] < touch.t <= change.seen_t]
        if laid is None or not covering \
                or (all(touch.side == laid[0] for touch in covering)
                    and not self._turned_on_top(pile, change.after, laid[0], laid[1][0])):
            return  # no other hand seen laying a card on it (its own hand may be taking it back)
        self._hurried, self._deferred = True, False
        try:
            if self._pile(pile, seen):
                self._reconcile()
        finally:
            self._hurried = False

    def _turned_on_top(self, pile: str, code: str, side: str, t: float) -> bool:
        """`code`, laid on `pile` by the hand of `side` that laid the card under it at `t`, is a card the engine
        has nowhere and no player's stock top (turned unseen too) or a face-up stock top of `side`'s, and no
        other hand came over the pile since the race window before `t` (taking its own card back, the hand
        would show another's under it)."""
        card = parse_card(code)
        source = self._stock_top_of(card)
        return (source[0] == side if source is not None else not self.state.cards()[card]) and not any(
            touch.side != side and touch.t > t - self.config.race_window_s
            for touch in self._touches.get(pile, ()))

    def _laid_instead(self, pile: str, card: Card, player: str, when: When) -> None:
        """`player`'s stock top `card`, read on `pile`, laid at `when`, where the last play found there is
        another card of theirs judged at that same touch (lifted, dated within a frame of it) and never
        read there, and `card` fits on what lay under that card but not on it: one hand lays one card at
        a time, and the card read is the one that touch laid. The play found is undone (made again
        without, the moves found after it kept) and its card is back in its player's hand, not judged
        (it went elsewhere unseen, under another card, or back to its place)."""
        index = self._last_play_on(pile)
        if index is None or self.state.phase != "play":
            return
        dated, move = self._found(index)
        if not isinstance(move, Play) or move.player != player or move.card == card \
                or not self._close(dated, when[0]) or self._history[index][0] != dated \
                or any(seen == move.card.code and t >= dated for seen, t in self._pile_reads.get(pile, ())):
            return
        rebuilt = self._made_again_without(index)
        if rebuilt is None:
            return
        before, later = rebuilt
        under = before.top(pile)
        if under is None or not self._fits_on(card, under) or self._fits_on(card, move.card):
            return
        self.state = before
        self._unmake(index, later)
        self._withdraw(move, pile, (dated, self._frame_at(dated)), f"the card laid there was {card}")
        self._judged.discard((move.player, move.card.code, dated))
        self._used.discard((pile, move.player, dated))
        self._landed[pile] = [item for item in self._landed.get(pile, []) if item != (dated, move.player)]
        self._lifted[move.card.code] = Lift(move.player, move.source, dated)

    def _pile(self, pile: str, seen: str) -> bool:
        """Explains `seen`, a card read settled on spit pile `pile` where the engine has another top:
        a card refused there laid again, a card laid under another, a stock card played (from its
        place, or turned up and played unseen), a spit card laid (a "Spit!" or a premature spit); True
        when the engine's position changed, False when nothing explained it or the card waits
        (`_deferred`)."""
        if seen not in CARD_CODES:
            return False
        card = parse_card(seen)
        if (pile, seen) in self._flagged and (pile, seen) not in self._unsure:
            return self._relaid(pile, card)
        ruled = self._ruled(lambda: self._laid_under(pile, seen))
        if ruled is not None:
            return ruled  # (False: the place the card read under it may have been turned on is not read yet)
        source = self._stock_top_of(card)
        first_seen = self._seen[pile]
        if source is not None:
            player, zone = source
            if pile in self._pending_spit and self._spat_alone():
                return True
            ruled = self._ruled(lambda: self._glimpsed_under(pile, card, player, zone, first_seen))
            if ruled is not None:
                return ruled  # (False: the place the glimpsed card may have been turned on is not read yet)
            if self._glimpsed_before(pile, card, player, zone, first_seen):
                return True
            when = self._when(pile, player, first_seen)
            if self._in_place_after(zone, seen, when[0], first_seen[0]):
                when = first_seen  # that touch came before the card left its place: it laid another
            unsure = False  # laid when its hand was over the pile, no contact seen: any time until it showed
            if self._contact_at(pile, player, when[0]) or any(
                    when[0] < t < first_seen[0] for _, t in self._pile_reads.get(pile, ())[:-1]):
                applied = self._earlier(pile, card, when)
            else:  # only its hand over the pile was seen, and nothing read there since: a card whose touch was seen before it showed lies under it
                unsure = when != first_seen
                applied = self._earlier(pile, card, when, until=first_seen[0])
                under = [t for t, side in self._landed.get(pile, ()) if side != player and t >= when[0]]
                if applied and under:
                    when = self._after(max(under), when)
            partners = self._tied(pile, player, when) - {self._shown.get(pile)}
            if partners:
                if not self._clear(pile) and self._waits_for_rival(pile, player, when[0]):  # read on top, no hand over it: second
                    self._shown[pile] = seen
                    return applied
                applied |= self._earlier(pile, card, when, tied=True)
                self._ties.pop(pile, None)
                self._shown.pop(pile, None)
                return self._attempt(player, card, zone, pile, when, visible=True, after_tie=True) or applied
            elif (self._rival_touch(pile, player, when[0]) or self._rival_hidden(pile, player, when[0])
                  or (unsure and self._rival_touch(pile, player, first_seen[0]))) \
                    and self._waits_for_rival(pile, player, when[0]):
                return applied
            self._ties.pop(pile, None)
            self._shown.pop(pile, None)
            self._laid_instead(pile, card, player, when)
            return self._attempt(player, card, zone, pile, when, visible=True) or applied
        if self.state.cards()[card]:
            return False  # a card the engine knows to lie elsewhere: a misreading
        last = self._last_touch(pile, first_seen, shown=seen)
        if self._earlier(pile, card, last[1] if last is not None else first_seen):
            return True
        if self._called_on is not None and self._turned_as_first_read((last[1] if last is not None else first_seen)[0]):
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
        if not stalemate and seen in self._stock_read:
            return False  # read in a stock place this deal: a stock card the engine lost track of, neither a spit
            # card laid early nor one turned unseen
        if not stalemate:  # a stock card turned up and laid unseen: the last hand there's, else anyone's
            for covered in (False, True):  # a hand seen touching a face-down top first, then one seen over it
                for player in sorted(self._players, key=lambda p: last is None or p != last[0]):
                    if last is not None and player != last[0] \
                            and (self._hurried or not self._hand_seen(pile, player, first_seen[0])):
                        continue  # another player's hand was seen there last, and this one's not at all (or in a hurry)
                    # dated by this player's hand on the pile (over it, if no contact was seen) before it was seen
                    laid = last[1] if last is not None and player == last[0] else self._when(pile, player, first_seen)
                    if (pile, player, laid[0]) in self._used:
                        if last is not None and player != last[0]:
                            continue  # their last touch there laid a card judged already: a hand lays one card at a time
                        laid = first_seen  # that touch laid a card judged already
                    if self._carrying(player, laid[0]):
                        continue  # their hand carried a stock card seen lifted to that touch: one hand, one card
                    turned = self._turned_unseen(player, laid[0], covered=covered, only=not (
                        self._rival_touch(pile, player, laid[0]) or self._rival_hidden(pile, player, laid[0])),
                        laid=(card, pile))
                    if self._deferred:
                        return False
                    if turned is not None and self._laid_on_the_way(player, card, pile, turned[0], laid[0]):
                        continue  # their hand laid the card it turned on the other pile first: one hand, one card
                    touched = turned is not None  # (one found by its touch, not as the only face-down top)
                    if turned is None and not covered and last is not None and player == last[0]:
                        turned = self._only_face_down(player, card, pile, laid)
                        if self._deferred:
                            return False
                    if turned is not None and (covered or laid == first_seen or self._hurried
                                               or (last is not None and player != last[0])) \
                            and not self._fits(player, turned[0], card, pile):
                        continue  # only seen over the place, no touch seen laying it, another hand there since,
                        # or judged before the place is read: turned there if it plays where it lies
                    if turned is not None and not self._hurried and (self._spit_or_turned(player, turned[0], card, pile)
                                                                     or (touched and self._turn_unread(turned[0], pile, laid))):
                        self._deferred = True
                        return False
                    if turned is not None and not self._hurried and self._rival_touch(pile, player, laid[0]) \
                            and self._waits_for_rival(pile, player, laid[0]):
                        return False  # another hand's card may lie under it
                    tied = turned is not None and self._tied_unseen(pile, player, card, laid)
                    if self._deferred:
                        return False
                    self._ties.pop(pile, None)
                    if turned is not None and self._try(TurnUp(player, turned[0], card), turned[1]):
                        # taken from its place (which shows what lay under it) to the pile
                        self._turned_unread.add(card.code)
                        lift = self._lifted.setdefault(card.code, Lift(player, turned[0], turned[1][0], attempted=True))
                        if not self._attempt(player, card, turned[0], pile, laid, visible=True, after_tie=tied) \
                                and (pile, card.code) not in self._flagged and self._lifted.get(card.code) is lift:
                            del self._lifted[card.code]  # not called: the place is read as the engine has it
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
        rebuilt = landed is not None
        if landed is None or landed.phase != "play":
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
            if self.state.spit_count(side):
                self._spat_early[pile] = (seen, when, side)
            if not rebuilt:
                return False  # the position when it landed is not known: no call against the player
            if not self._contact_at(pile, side, when[0]) \
                    and any(when[0] < t < first_seen[0] for _, t in self._pile_reads.get(pile, ())[:-1]):
                return False  # only a hand over the pile dates it, and the pile was read settled since: a hand unseen
                # may have laid it after that read
            if self._turned_around(side, when[0]) or self._read_turned(exc.move, seen) \
                    or self._turned_under_arm(exc.move, side, when[0]) or self._hidden_under_arm(side, when[0]):
                return False  # it may be the card turned before it was laid, not a spit card
            if not self._sure_of(exc.move, when[0], (pile, card, side)):
                self._unsure.add((pile, seen))
                self._doubted[pile, seen] = (side, when, exc.with_traceback(None))  # not the frames it was raised through
                self._deferred = True  # what the move needs may have changed unseen: wait for the table
                return False
            self._unsure.discard((pile, seen))
            self._doubted.pop((pile, seen), None)
            if self._lifted_under_arm(side, when[0]):
                return False  # the card lifted put down unseen under the arm, the card under it turned and laid
            self._emit("premature_spit", when, player=side, move=exc.move.describe(), reason=str(exc))
            return False
        except IllegalMove:
            pass
        self._flagged[pile, seen] = (side, when[0])
        return False

    def _tied_unseen(self, pile: str, player: str, card: Card, laid: When) -> bool:
        """`card`, turned unseen by `player` and laid on `pile` at `laid`, touched it within a frame of
        another player's contact carrying a card seen lifted, not judged yet (`_tied`): which came first
        is not seen, as for a stock top (`_pile`). Read on top with no hand over the pile, it came second:
        the card under it is judged first (`_earlier`, tied), and `card` against it. While a hand is back
        over the pile it waits (`_waits_for_rival`: a card taken back was the one refused), the referee
        marked waiting (`_deferred`). True when the two were tied."""
        if not self._tied(pile, player, laid):
            return False
        if not self._clear(pile) and self._waits_for_rival(pile, player, laid[0]):
            self._deferred = True
            return True
        self._earlier(pile, card, laid, tied=True)
        return True

    def _ruled(self, rule: Callable[[], bool]) -> bool | None:
        """Applies a rule that may make the card wait (`_deferred`: a place it needs is not read yet)
        with that flag cleared first: True when the rule explained the card, False when it made it
        wait, None (the flag as it was before) when it did neither."""
        deferred, self._deferred = self._deferred, False
        if rule():
            return True
        if self._deferred:
            return False
        self._deferred = deferred
        return None

    def _laid_under(self, pile: str, top: str) -> bool:
        """A card read settled under `pile`'s new top `top` (`Snapshot.under`), which the engine has
        neither as its top there nor anywhere in that pile, was laid on the pile before the top, by
        the hand that touched (else covered) the pile last before the one that laid the top (its
        last contact before the top was first seen; another hand's contact found at that very
        instant counts as before it: `_tied_with_top`), since the pile last settled before the top (where
        the pile showed that card settled before the top: its hand's last touch before that read, since
        the pile settled before it): for a face-up stock top, its player's hand; for a card the engine
        has nowhere, the last hand's, turned unseen on a face-down top that hand touched (`_turned_unseen`; not at a
        stalemate, when an unknown card laid is a spit card). No other contact with the pile since
        it settled may come before that touch unexplained: a card laid then may lie under it unseen
        (it may have been refused on that one). A face-up stock top seen lifted whose player's hand was
        not seen at the pile since it settled before the top was laid there under the other arm, dated
        as `_laid_hidden` guesses (a race it wins has no margin). It is judged at that touch only where it plays on
        the engine's top: a card read under another never makes a call against a player. True when
        the engine moved."""
        code = self._under_seen.get(pile)
        state = self.state
        if code is None or code == top or state.phase != "play" or code == self._expected(pile):
            return False
        under = parse_card(code)
        if under in state.pile(pile):
            return False
        source = self._stock_top_of(under)
        if source is None and (state.cards()[under] or state.is_stalemate()):
            return False
        reads = self._pile_reads.get(pile, ())
        seen = self._seen[pile]
        if len(reads) >= 3 and reads[-1][0] == top and reads[-2][0] == code:
            since, laid_top = reads[-3][1], reads[-2][1]  # it showed settled before the top: laid before that read
        else:
            since = reads[-2][1] if len(reads) >= 2 and reads[-1][0] == top else -math.inf
            laid_top = self._top_touch(pile, top, seen, since)
        if laid_top is None:
            return False  # no hand seen laying the top: nothing tells which touch laid the card under it
        top_source = self._stock_top_of(parse_card(top))
        touches = [touch for touch in self._touches.get(pile, ())
                   if (since < touch.t < laid_top or self._tied_with_top(pile, touch, laid_top, top_source))
                   and (pile, touch.side, touch.t) not in self._used
                   and (source is None or touch.side == source[0])]
        if not touches and source is not None \
                and not any(t.side == source[0] and t.t > since for t in self._touches.get(pile, ())):
            touches = self._laid_hidden(pile, under, source[0], laid_top)  # its hand never seen there: a guess
        touch = next((t for t in reversed(touches) if t.contact), touches[-1] if touches else None)
        if touch is None or any(other.contact and since < other.t < touch.t
                                and (pile, other.side, other.t) not in self._used for other in self._touches.get(pile, ())):
            return False  # (another card may lie under it unseen, the one it was truly laid on)
        side, laid = touch.side, (touch.t, touch.frame)
        turned = None if source is not None else self._turned_unseen(side, laid[0])
        if source is None and turned is None:
            return False
        place, turned_at = (source[1], None) if turned is None else turned
        return bool(self._played_first(side, under, place, turned_at, pile, laid))

    def _tied_with_top(self, pile: str, touch: Touch, laid_top: float, top_source: tuple[str, str] | None) -> bool:
        """`touch` is another player's contact with `pile`, or their hand's coming over it, found at the very
        instant (`laid_top`) of the contact of the top's player that laid the top (both dated to the same
        frame): the card under the top was laid then too, not at that hand's earlier coming over the pile,
        nor at its contact seen later in the same stay (a contact is seen a frame or two late: the card read
        under the top was there first)."""
        return touch.t == laid_top and top_source is not None and touch.side != top_source[0] \
            and any(other.contact and other.side == top_source[0] and other.t == laid_top
                    for other in self._touches.get(pile, ()))

    def _played_first(self, side: str, card: Card, place: str, turned_at: When | None, pile: str,
                      laid: When, then: Play | None = None) -> bool | None:
        """`side` laid `card` on `pile` at `laid` from their stock place `place`: their face-up top, or
        (`turned_at`: the turn's date) turned up there unseen first. Made where it plays on the engine's
        position (and `then`, a play after it, plays on it); None where it does not (nothing made), else
        whether the engine moved."""
        state = self.state
        if turned_at is not None:
            if state.check(TurnUp(side, place, card)) is not None:
                return None
            state = state.apply(TurnUp(side, place, card))
        first = Play(side, card, place, pile)
        if state.check(first) is not None or (then is not None and state.apply(first).check(then) is not None):
            return None
        if turned_at is not None and not self._try(TurnUp(side, place, card), turned_at):
            return None
        return self._attempt(side, card, place, pile, laid, visible=True)

    def _top_touch(self, pile: str, top: str, seen: When, since: float) -> float | None:
        """When the hand that laid `top` on `pile` (first seen there at `seen`) touched it, after
        `since`: for a stock top, its player's last contact with the pile before then (else the last
        time their hand came over it; else, their hand not seen there, the top's first read), else
        the last contact of any hand's; None when no such touch was seen."""
        source = self._stock_top_of(parse_card(top))
        if source is None:
            last = self._last_touch(pile, seen)
            return None if last is None or last[1][0] <= since else last[1][0]
        own = [touch for touch in self._touches.get(pile, ())
               if touch.side == source[0] and since < touch.t <= seen[0]]
        touch = next((t for t in reversed(own) if t.contact), own[-1] if own else None)
        return seen[0] if touch is None else touch.t

    def _glimpsed_under(self, pile: str, card: Card, player: str, zone: str, seen: When) -> bool:
        """`player`'s stock top `card`, settled on `pile` (first seen at `seen`) where the engine would
        refuse it, plays on a card read there only in passing (a glimpse: never settled) since the
        pile last settled, and not on the engine's top: that card was laid first, covered before it
        could settle, by the hand that touched the pile last before the glimpse (after the pile last
        settled), from a place of that hand's player (a face-up stock top of theirs, or a face-down
        top their hand touched: turned unseen), where it plays on the engine's top. The glimpse alone
        makes no event: only `card`, legal on it, confirms it. True when the engine moved."""
        glimpses, since = self._glimpsed.get(pile, ([], -math.inf))
        if not glimpses or self.state.check(Play(player, card, zone, pile)) is None:
            return False
        for code, read in reversed(glimpses):
            under = parse_card(code)
            last = self._last_touch(pile, read)
            if read[0] >= seen[0] or under is card or last is None or last[1][0] <= since:
                continue
            side, laid = last
            source = self._stock_top_of(under)
            turned = None
            if source is None and not self.state.cards()[under]:
                turned = self._turned_unseen(side, laid[0])
                if turned is None:
                    continue
            elif source is None or source[0] != side:
                continue
            place, turned_at = (source[1], None) if turned is None else turned
            made = self._played_first(side, under, place, turned_at, pile, laid, then=Play(player, card, zone, pile))
            if made is not None:
                return made
        return False

    def _glimpsed_before(self, pile: str, card: Card, player: str, zone: str, seen: When) -> bool:
        """`player`'s stock top `card`, settled on `pile` (first seen at `seen`) where it plays on the
        engine's top, was read there after a card read only in passing (a glimpse: never settled) since
        the pile last settled, on which it does not play: a face-up stock top of another player, whose
        hand touched the pile last before the glimpse (or, no contact seen, was over it last; after the
        pile last settled), and which plays on the engine's top. That card was laid first and covered
        before it could settle (a card read on a pile lay there before the card read over it), so its
        play is made, dated by that touch, and `card` is then judged on it (refused). True when the
        engine moved."""
        glimpses, since = self._glimpsed.get(pile, ([], -math.inf))
        if not glimpses or self.state.check(Play(player, card, zone, pile)) is not None:
            return False
        for code, read in reversed(glimpses):
            under = parse_card(code)
            last = self._last_touch(pile, read) or self._last_cover(pile, read)
            if read[0] >= seen[0] or under is card or last is None or last[1][0] <= since or last[0] == player:
                continue
            source = self._stock_top_of(under)
            if source is None or source[0] != last[0] or self._fits_on(card, under):
                continue
            made = self._played_first(last[0], under, source[1], None, pile, last[1])
            if made is not None:
                return made
        return False

    def _in_place_after(self, zone: str, code: str, t: float, seen: float) -> bool:
        """Stock card `code`, no longer shown in its place `zone` (or its place under a hand: what it
        showed last is no longer seen), was last read in a stock place after `t` and before it was seen
        on a spit pile at `seen`: a touch of its player's on that pile at `t` did not lay it (a hand lays
        a card it holds, not one still lying in its place)."""
        return (self.readings.get(zone) != code or not self._clear(zone)) \
            and t < self._read_in_place.get(code, (-math.inf, ''))[0] < seen

    def _waits_for_rival(self, pile: str, player: str, t: float) -> bool:
        """`player`'s card seen on `pile`, laid at `t`, may lie on another player's card laid just
        before (their hand there, no card of theirs judged): it waits for that card to be found (its
        place read without it, its player taking one card or the other back), at most `TIE_WAIT_S` from
        the first frame it waited, or longer while a hand is over the pile or it is not read again (a card
        being taken back shows what lay under it), or, up to `TAKE_BACK_S`, while the place that card may
        have come from is still under its player's arm (`_rival_place_hidden`); the referee looks again in
        every frame meanwhile (`SpitReferee.update`), so the wait ends with the evidence. False, and the
        wait over, when it need not wait."""
        since = self._ties.setdefault(pile, self._now[0])
        if self._now[0] - since < TIE_WAIT_S or not self._clear(pile) or pile in self._left_unread \
                or (self._now[0] - since < TAKE_BACK_S and self._rival_place_hidden(pile, player, t)):
            return True
        self._ties.pop(pile, None)
        return False

    def _rival_place_hidden(self, pile: str, player: str, t: float) -> bool:
        """Another player's hand was over `pile` less than the race window before `t` (not within a frame
        of it: which of two such cards came first is told by the one taken back) and one of their stock
        places holding a card is under their arm now, not read since before that touch: the card that
        hand may have laid under `player`'s can still be shown taken from there (or brought back to it)."""
        for touch in self._touches.get(pile, ()):
            if touch.side == player or not t - self.config.race_window_s < touch.t < t or self._close(touch.t, t):
                continue
            if any(self.state.pile(zone) and not self._clear(zone)
                   and max(self._read_clear.get(zone, -math.inf), self._seen.get(zone, (-math.inf, 0))[0]) < touch.t
                   for zone in self.rules.stock_names[self.rules.player_index[touch.side]]):
                return True
        return False

    def _rival_hidden(self, pile: str, player: str, t: float) -> bool:
        """Another player's hand was over `pile` (no contact of theirs seen there about then, no card
        judged) less than the race window before `t`, touching no other spit pile since (one hand holds
        one card: one it laid there went there), and one of their stock places with a face-up top
        has not been read since before then (under their arm): that hand may have laid the card taken
        from it unseen, under `player`'s (which waits for it, at most `TIE_WAIT_S`)."""
        touches = self._touches.get(pile, ())
        for touch in touches:
            if touch.side == player or touch.contact or not t - self.config.race_window_s < touch.t <= t \
                    or (pile, touch.side, touch.t) in self._used or any(
                        other.contact and other.side == touch.side
                        and abs(other.t - touch.t) <= self.config.race_window_s for other in touches) \
                    or any(other.contact and other.side == touch.side and other.t >= touch.t
                           for name in self._piles if name != pile for other in self._touches.get(name, ())):
                continue  # (a hand seen touching the pile too is judged by its contact)
            if any(self.state.top(zone) is not None and self._covered.get(zone, -math.inf) >= touch.t
                   and max(self._read_clear.get(zone, -math.inf), self._seen.get(zone, (-math.inf, 0))[0]) < touch.t
                   for zone in self.rules.stock_names[self.rules.player_index[touch.side]]):
                return True
        return False

    def _earlier(self, pile: str, card: Card, when: When, *, tied: bool = False, until: float | None = None) -> bool:
        """Lifted cards (other than `card`) whose player's hand touched `pile` after lifting them
        and more than a frame before `when` (`_close`; with `tied`, within a frame either way
        too; with `until`, the time `card` was first seen on top there when its own touch was not
        seen, only its hand over the pile: any time before that): they touched the pile before
        `card` (and went under it, or were taken back), so they are judged first, in touch order;
        not a card seen there and taken back by its player (`_lifted_off`), nor one the engine would refuse
        there whose hand touched a spit pile again since (`_touched_again`), nor one gone from its place longer
        than a hand carries a card (`_carried_no_longer`), nor at the touch that laid
        `card` (its player's within a frame of `when`, `card` a stock top of theirs: one hand lays one
        card, and `card` was read there). True when one was applied."""
        limit = when[0] if until is None else max(when[0], until)
        found = []
        took = self._took_back.get(pile)
        source = self._stock_top_of(card)
        for code, lift in self._lifted.items():
            if code == card.code or lift.attempted:
                continue
            for touch in self._touches.get(pile, ()):
                if source is not None and touch.side == source[0] and self._close(touch.t, when[0]):
                    continue  # the touch that laid `card`: one hand lays one card
                if self._free(pile, touch, lift.player) and lift.t <= touch.t \
                        and not self._taking_back(pile, touch) and not self._lifted_later(code, lift, touch.t) \
                        and not self._carried_no_longer(lift, touch.t) \
                        and (tied or until is not None or not self._close(touch.t, when[0])) \
                        and (touch.t < limit or self._close(touch.t, when[0])):
                    if took is None or (touch.side, touch.t) != took[:2]:
                        found.append(((touch.t, touch.frame), code, lift))
                    break
        applied = False
        for touched, code, lift in sorted(found, key=lambda item: item[0]):
            if self.state.check(Play(lift.player, parse_card(code), lift.zone, pile)) is not None \
                    and self._touched_again(lift.player, touched[0]):
                continue  # its hand touched a spit pile again since: the card may be that touch's, not this one's
            applied |= self._attempt(lift.player, parse_card(code), lift.zone, pile, touched, visible=False)
        return applied

    def _attempt(self, player: str, card: Card, zone: str, pile: str, when: When, *, visible: bool,
                 legal_counts: bool = True, after_tie: bool = False) -> bool:
        """`player`'s `card` from `zone` touched `pile` at `when`: a race if another player's card
        landed there just before (`after_tie`: or within a frame after, judged first), then a play or
        an illegal play. True when the engine moved."""
        key = (player, card.code, when[0])
        if key in self._judged:
            return False
        if not visible and legal_counts and self._unknown_laid(pile, player, when[0]):
            self._used.add((pile, player, when[0]))  # that touch laid the card read there since
            lift = self._lifted.get(card.code)
            if lift is not None:
                lift.attempted = True  # judged at no other touch: it went elsewhere unseen (a space, its place)
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
        self._judged = self._recent(self._judged, 2)
        self._judged.add(key)
        landed = [item for item in self._landed.get(pile, ()) if item[0] < when[0] or not first and (
            item[0] == when[0] or ((after_tie or not legal_counts) and self._close(item[0], when[0])))]
        raced = landed[-1] if landed and landed[-1][1] != player and when[0] - landed[-1][0] < self.config.race_window_s \
            else None
        if reason is None:
            space = self._space_touched(player, card, zone, when[0])
            if space is not None and self._try(MoveToSpace(player, card, zone, space[0]), space[1]):
                move = Play(player, card, space[0], pile)  # moved to a space of theirs on the way, unseen
            self._race(pile, raced, player, when)
            self._settle_lift(card, when)
            self._flagged.pop((pile, card.code), None)  # doubted there as a spit card: played, not to be taken back
            self._unsure.discard((pile, card.code))
            self._doubted.pop((pile, card.code), None)
            kept = self._landed.setdefault(pile, [])
            kept.append((when[0], player))
            kept.sort()
            del kept[:-8]
            self._apply(move, when)
            return True
        if not (self._hand_seen(pile, player, when[0]) or (visible and self._laid_in_view(pile, card, player, when[0]))) \
                or not self._read_under(pile, card, player, when[0]) or self._odd_stock() or self._laid_on_fitting(pile, card) \
                or self._touch_laid_other(player, card, pile, when[0]) \
                or (legal_counts and self._top_laid_after(pile, when[0])) \
                or (not visible and (self._other_card_hidden(player, zone, pile, when[0]) or self._touched_both(player, pile, when[0])
                                     or self._other_lift_fits(player, card, pile, when[0])
                                     or (not legal_counts and self._unknown_laid(pile, player, when[0])))):
            self._judged.discard(key)
            lift = self._lifted.get(card.code)
            if visible and lift is not None:
                lift.attempted = True  # seen there: no other touch is this card's
            if not legal_counts and self._odd_stock():
                self._held[pile, card.code] = (player, zone, when, self._now[0])
            return False  # the position the card is refused on was not read: no call against the player
        if not legal_counts and self._covered_since(pile, card, player, when[0]):
            return False  # another card was read there since and the player never reached back: it may lie under it
        lift = self._lifted.get(card.code)
        if lift is not None:
            lift.attempted = True
        if visible:
            if lift is None:
                self._lifted[card.code] = Lift(player, zone, when[0], attempted=True)
            self._flagged[pile, card.code] = (player, when[0])
        if legal_counts:  # not yet back in its place: its player will come for it
            horizon = self._now[0] - self.config.touch_memory_s
            self._refused = [item for item in self._refused if item[3] >= horizon]
            self._refused.append((card.code, player, pile, when[0], math.inf))
        self._used.add((pile, player, when[0]))
        self._race(pile, raced, player, when)
        self._emit("illegal_play", when, player=player, card=card.code, to=pile, reason=reason, **{"from": zone})
        return False

    def _laid_on_the_way(self, player: str, card: Card, pile: str, zone: str, t: float) -> bool:
        """`player`'s hand touched the other spit pile after its last contact with face-down place `zone`
        (where a card was turned unseen) and before its touch on `pile` at `t`, laying no card judged yet,
        and `card` was not read there since (laid there first, taken back and laid here): the card turned
        went there (a hand takes the card it turns to the first pile it touches), so `card`, laid on `pile`
        at `t`, is not that card."""
        turned = max((touch.t for touch in self._face_down_touches(player, t).get(zone, ())), default=t)
        return any(self._free(other, touch, player) and turned < touch.t < t - self._tie_s
                   and not self._taking_back(other, touch)
                   and not any(seen == card.code and when > touch.t for seen, when in self._pile_reads.get(other, ()))
                   for other in self._piles if other != pile for touch in self._touches.get(other, ()))

    def _laid_on_fitting(self, pile: str, card: Card) -> bool:
        """`pile` shows `card` on top with a card it plays on read settled under it (`Snapshot.under`,
        that card's index corner read past it) other than the engine's top there: the camera shows it
        laid on a card it fits, so the position it would be refused on is not the one on the table (unless
        the engine has it played there: the card shown is that play's, not the one judged at an earlier touch)."""
        under = self._under_seen.get(pile)
        return self._settled.get(pile) == card.code and under is not None and under in CARD_CODES \
            and under != self._expected(pile) != card.code and self._fits_on(card, parse_card(under))

    def _top_may_be_played(self, player: str, zone: str) -> bool:
        """`player`'s hand touched a spit pile after their stock place `zone` last showed the engine's top there,
        and that pile has not been read since showing the engine's top on it: the hand may have played that top
        there unseen (its place under the arm), so a card then put on `zone` is not yet called stacked on it."""
        shown = self._read_in_place.get(self._expected(zone))
        since = shown[0] if shown is not None and shown[1] == zone else -math.inf
        return any(touch.contact and touch.side == player and touch.t > since
                   and self._top_read.get(pile, -math.inf) < touch.t
                   for pile in self._piles for touch in self._touches.get(pile, ()))

    def _emptied_unseen(self, zone: str) -> bool:
        """Stock place `zone` was read empty (if only for a frame) since the engine's last move there:
        the card the engine has on it left by a move not found, so a card put there is not stacked on it."""
        runs = self._empty_runs.get(zone)
        return bool(runs) and runs[-1][1] > self._moved.get(zone, -math.inf)

    def _other_card_hidden(self, player: str, zone: str, pile: str, t: float) -> bool:
        """Another of `player`'s stock places, its face-up top one that plays on `pile`, has not been read
        clear since before the card from `zone` was lifted (under the arm all along), or, their hand having
        touched a spit pile since that lift (it may have laid that card there), came over it after it was
        last read clear and before `t` (it may have taken that card on the way): the hand that touched the pile at
        `t`, the card unseen there, may have laid that card, legally, not refused this one (unless the
        pile was read since showing the engine's top there: no card was laid)."""
        lift = self._lifted.get(self._expected(zone)) if zone in self._owner else None
        since = min(lift.t, t) if lift is not None else t
        if self._top_read.get(pile, -math.inf) > t:
            return False
        then = self._state_at(t)
        fetched = lift is not None and self._touched_since(player, lift.t, t)  # the hand went to a pile since the lift
        for other in self.rules.stock_names[self.rules.player_index[player]]:
            top = then.top(other)
            clear = self._read_clear.get(other, -math.inf)
            if other != zone and top is not None and then.check(Play(player, top, other, pile)) is None and (
                    clear < since or (fetched and any(touch.side == player and clear < touch.t < t
                                                      for touch in self._touches.get(other, ())))):
                return True
        return False

    def _other_lift_fits(self, player: str, card: Card, pile: str, t: float) -> bool:
        """Another card of `player`'s, seen lifted from its place by `t` and judged nowhere since, plays
        on what `pile` last showed before `t` (or on the engine's top there): one hand lays one card, and
        the touch at `t` may have laid that one, legally, so `card`, not seen there, is not refused at it."""
        reads = [seen for seen, when in self._pile_reads.get(pile, ()) if when < t and seen in CARD_CODES]
        tops = {parse_card(reads[-1])} if reads else set()
        top = self._state_at(t).top(pile)
        if top is not None:
            tops.add(top)
        return any(lift.player == player and code != card.code and not lift.attempted and lift.t <= t
                   and any(self._fits_on(parse_card(code), under) for under in tops)
                   for code, lift in self._lifted.items())

    def _touch_laid_other(self, player: str, card: Card, pile: str, t: float) -> bool:
        """Another card of `player`'s was judged played on `pile` at their touch at `t`: one hand lays one
        card, so `card` is not refused at that touch (the engine's position there rests on that play)."""
        return any(isinstance(move, Play) and move.player == player and move.to == pile and move.card != card
                   and when == t for when, move in self._made)

    def _unknown_laid(self, pile: str, player: str, t: float) -> bool:
        """`pile` was read, after `player`'s contact there at `t` and before another player's next
        contact there (or one within a frame of `t`: which came first is not seen, and the card may be
        that hand's), showing a card the engine has nowhere, that is no player's stock top and that
        lay there neither before the touch (the engine's top then, or read there before it): a card
        turned unseen, or a spit card. That touch laid that card (one hand lays one card), so a card
        of theirs not seen there is not judged at it: one found back in its place was not taken back
        from there, and one lifted unseen was not laid there (nor is it judged at another touch)."""
        known = self.state.cards()
        reads = self._pile_reads.get(pile, [])
        before = {seen for seen, when in reads if when <= t} | {self._expected_in(self._state_at(t, before=True), pile)}
        rival = min((touch.t for touch in self._touches.get(pile, ())
                     if touch.contact and touch.side != player and touch.t - t > -self._tie_s), default=math.inf)
        return any(t < when < rival and seen in CARD_CODES and seen not in before and not known[parse_card(seen)]
                   and self._stock_top_of(parse_card(seen)) is None for seen, when in reads)

    def _top_laid_after(self, pile: str, t: float) -> bool:
        """The engine's top card of `pile` was played there more than a frame after `t`: a card that
        touched the pile at `t` came before it, so it is not refused on it (the order of the two is wrong)."""
        top = self.state.top(pile)
        for when, move in reversed(self._made):
            if isinstance(move, Play) and move.to == pile:
                return move.card == top and when - t >= self._tie_s
        return False

    def _judge_held(self) -> None:
        """A card taken back whose refusal was held back while a stock place showed what no move explains
        (`_held`) is judged again, once, when no place does (what the engine has is what the table shows
        again); forgotten after `TAKE_BACK_S`."""
        for key, (player, zone, when, held) in list(self._held.items()):
            if self._now[0] - held > TAKE_BACK_S:
                del self._held[key]
            elif not self._odd_stock() and self.state.phase == "play":
                del self._held[key]
                self._attempt(player, parse_card(key[1]), zone, key[0], when, visible=False, legal_counts=False)

    def _space_touched(self, player: str, card: Card, zone: str, t: float) -> tuple[str, When] | None:
        """An empty stock place of `player`'s (still read empty) their hand touched after `card` left
        `zone` (seen lifted, else since the last move there; after it was last read in a stock place) and at least `FETCH_S` before it touched
        a spit pile at `t` (a hand lays a card down and takes it up again no faster than it fetches
        one): the card was moved into that space first, unseen under the hand, and played from there.
        The place and the first such contact, leaving out a contact the place was read empty around
        (`_read_empty_around`); of several such places, the one touched last (the hand took the card up
        for the pile from there, its last contact on a place before it touched the pile)."""
        lift = self._lifted.get(card.code)
        since = max(lift.t if lift is not None else self._moved.get(zone, 0.0), t - TOUCH_REACH_S,
                    self._read_in_place.get(card.code, (-math.inf, ''))[0])
        found: list[tuple[str, list[Touch]]] = []
        for space in self.rules.stock_names[self.rules.player_index[player]]:
            if space == zone or self.state.pile(space) or self.readings.get(space) != EMPTY:
                continue
            after = max(since, self._moved.get(space, -math.inf))
            touched = [touch for touch in self._touches.get(space, ())
                       if touch.contact and touch.side == player and after < touch.t <= t - FETCH_S
                       and not self._read_empty_around(space, touch.t)]
            if touched:
                found.append((space, touched))
        if not found:
            return None
        space, touched = max(found, key=lambda item: item[1][-1].t)
        return space, (touched[0].t, touched[0].frame)

    def _read_empty_around(self, space: str, t: float) -> bool:
        """Stock place `space` was read empty both at or before a contact there at `t` and after it, less than
        `FETCH_S` apart: the contact laid no card there (a card moved into a space lies there at least 0.29 s
        before its hand takes it up again: in none of 1834 such moves on the rendered games 9001-9440 was
        the space read empty between)."""
        runs = self._empty_runs.get(space, ())
        if any(first <= t < last for first, last in runs):
            return True  # read empty in the frames either side of it
        before = max((last for _, last in runs if last <= t), default=-math.inf)
        return any(t < first < before + FETCH_S for first, _ in runs)

    def _race(self, pile: str, raced: tuple[float, str] | None, player: str, when: When) -> None:
        """`player`'s card judged at `when` on `pile` came less than the race window after `raced`
        (time, player), another player's card laid there, or touched within a frame of it (`_close`)
        and was found first: a race (its margin the contacts' difference either way, none where the first
        card's touch was never seen)."""
        if raced is not None:
            t0, first = raced
            if (pile, t0) in self._unseen_laid:  # the first card's touch was never seen: no margin to tell
                self._emit("race", when, pile=pile, first=first, second=player, margin_ms=None, second_t=when[0])
                return
            self._emit("race", when, pile=pile, first=first, second=player,
                       margin_ms=round(abs(when[0] - t0) * 1000, 3), first_t=t0, second_t=when[0])
