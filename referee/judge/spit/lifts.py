"""Lifted stock cards and refusals: cards judged at their touch, taken back, or refused on what was read."""

from __future__ import annotations

import math

from referee.cards import Card, is_adjacent, parse_card
from referee.judge.spit.config import (
    FETCH_S,
    RETURN_MIN_S,
    TAKE_BACK_S,
    TIE_WAIT_S,
    TOUCH_REACH_S,
    Lift,
    When,
)
from referee.observations import CARD_CODES, EMPTY
from referee.rules.spit import Play, Spit, TurnUp
from referee.tracker import Touch


class LiftedCards:
    """Stock cards seen lifted (`_lifted`), judged at their touch, taken back or refused. A part of `SpitReferee`, which holds the state."""

    def _lifted_off(self, pile: str, after: str, gone: float) -> None:
        """The card read on `pile` is gone from it at `gone`: if it is a stock card not judged yet
        (waiting for a rival's card) and its player's hand touched the pile after it was read there,
        or the pile now shows `after`, the other player's card that touched it within a frame of it
        (`_tied`: no hand but its player's takes it off), its player took it back, so it was refused
        (`_took_back`: the touch that laid it and those that took it back lay no card), and it is judged
        at the touch that laid it once the pile is clear (`_returns`), not kept waiting until it is seen
        back in its place."""
        code = self.readings.get(pile, EMPTY)
        lift = self._lifted.get(code)
        seen = self._seen.get(pile)
        if lift is None or lift.attempted or seen is None:
            return
        laid = self._when(pile, lift.player, seen)
        if self._covered_by_own(pile, parse_card(code), lift.player, after):
            return
        if laid != seen and (after in self._tied(pile, lift.player, laid) or self._tied_top(pile, after, lift.player, laid)
                             or any(touch.side == lift.player and seen[0] <= touch.t <= gone  # its hand there, a contact seen or not
                                    for touch in self._touches.get(pile, ()))):
            self._took_back[pile] = (lift.player, laid[0], gone)
            self._returns.append((parse_card(code), lift, pile, laid))

    def _tied_top(self, pile: str, after: str, player: str, laid: When) -> bool:
        """`after` is another player's face-up stock top (never seen lifted: its place under their arm)
        whose hand's contact with `pile` came within a frame of `player`'s laying there (`_close`): the
        two cards were tied, and the one gone from the pile to show the other was taken back."""
        if after not in CARD_CODES:
            return False
        source = self._stock_top_of(parse_card(after))
        return source is not None and source[0] != player and any(
            touch.contact and touch.side == source[0] and self._close(touch.t, laid[0])
            for touch in self._touches.get(pile, ()))

    def _covered_by_own(self, pile: str, card: Card, player: str, after: str) -> bool:
        """`pile` shows `after` where `player`'s `card` lay: if `after` is a stock card of the same
        player's (a face-up top of theirs, or lifted from one) that fits on `card` and not on the
        engine's top there (what lay under `card` as far as the referee knows), their hand laid it
        on `card` and did not take `card` back first (a card laid after taking one back goes on the
        card under it); so too a card the engine has nowhere, where that player's hand touched a face-down
        top of theirs since the last move there (turned unseen) before the pile showed it."""
        if after not in CARD_CODES:
            return False
        top = parse_card(after)
        source = self._stock_top_of(top)
        own = source[0] == player if source is not None else \
            not self.state.cards()[top] and any(self._face_down_touches(player, self._seen[pile][0]).values())
        return own and self._fits_on(top, card) \
            and not (self._expected(pile) in CARD_CODES and self._fits_on(top, parse_card(self._expected(pile))))

    def _fits_on(self, card: Card, under: Card) -> bool:
        """`card` may be laid on `under` (next to it, and of the other colour where the rules ask for it)."""
        return is_adjacent(card, under) and not (self.rules.alternate_colours and card.red == under.red)

    def _taken_off_unseen(self, pile: str, after: str, gone: float) -> None:
        """The card read on `pile` is a face-up stock top never seen lifted (its place under a hand),
        laid by its player's touch, and the pile now shows `after` (first seen at `gone`), what lay
        under it (the engine's top, another player's stock card laid just before, which came first:
        `_shown_under`, or a card the engine has nowhere, laid just before by another player's hand
        touching the pile, turned unseen): its player took it back (`_took_back`), so it was refused
        there and came second; it is judged at that touch once the pile is clear (`_returns`)."""
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
        unseen = after in CARD_CODES and rival is None and not self.state.cards()[parse_card(after)]
        if after != self._expected(pile) and (rival is None or rival[0] == player) and not unseen:
            return
        laid = self._last_touch(pile, seen, {player})
        if laid is None or laid[1][0] < seen[0] - TOUCH_REACH_S or (unseen and not any(
                touch.contact and touch.side != player and laid[1][0] - self.config.race_window_s < touch.t <= laid[1][0]
                for touch in self._touches.get(pile, ()))):
            return
        self._took_back[pile] = (player, laid[1][0], gone)
        self._returns.append((card, Lift(player, zone, laid[1][0]), pile, laid[1]))
        if rival is not None:
            self._shown_under(pile, parse_card(after), rival, laid[1][0])

    def _unknown_taken_off(self, pile: str, after: str, gone: float) -> None:
        """The card read on `pile`, one the engine has nowhere (turned unseen), is gone from it at `gone`
        and the pile shows `after`, another such card: it lay under the one taken off, laid before it.
        The hand that laid the card taken off (its last contact there before it was read), seen back
        over the pile since, took it back (`_took_back`: those touches lay no card), so `after` is
        judged at an earlier touch, if another player's hand touched the pile less than the race
        window before."""
        code = self.readings.get(pile, EMPTY)
        seen = self._seen.get(pile)
        if code not in CARD_CODES or after not in CARD_CODES or seen is None or self.state.phase != "play" \
                or self.state.cards()[parse_card(code)] or self.state.cards()[parse_card(after)] \
                or self._stock_top_of(parse_card(code)) is not None or self._stock_top_of(parse_card(after)) is not None:
            return
        laid = self._last_touch(pile, seen)
        if laid is None or laid[1][0] < seen[0] - TOUCH_REACH_S:
            return
        side, (t, _) = laid
        touches = self._touches.get(pile, ())
        if any(touch.side == side and seen[0] <= touch.t <= gone for touch in touches) and any(
                touch.contact and touch.side != side and t - self.config.race_window_s < touch.t <= t for touch in touches):
            self._took_back[pile] = (side, t, gone)

    def _shown_under(self, pile: str, card: Card, source: tuple[str, str], before: float) -> None:
        """Another player's stock top `card` (from `source`), shown on `pile` by a card taken back off
        it that touched the pile at `before`, lay under that card: it came first, so it is played at
        its player's last contact with the pile before then (less than the race window before, or
        within a frame after), where it fits on the engine's top."""
        player, zone = source
        touch = self._last_touch(pile, (before + self._tie_s, 0), {player})
        if touch is None or touch[1][0] <= before - self.config.race_window_s \
                or self.state.check(Play(player, card, zone, pile)) is not None:
            return
        self._attempt(player, card, zone, pile, touch[1], visible=True)

    def _settle_lift(self, card: Card, when: When) -> None:
        """`card` lands at `when`: if its player's hand touched a spit pile with it before (and
        it came back unseen), that touch is judged too; not one made while the card's place lay clear
        and unchanged (`_still_in_place`), nor any where the card landed unseen (`when` a guess,
        `_unseen_laid`: whether a touch of that hand came before it is not known)."""
        lift = self._lifted.pop(card.code, None)
        if lift is None or lift.attempted or any(t == when[0] for _, t in self._unseen_laid):
            return
        for pile in self._piles:
            for touch in self._touches.get(pile, ()):
                if self._free(pile, touch, lift.player) and lift.t <= touch.t < when[0] \
                        and not self._taking_back(pile, touch) and not self._still_in_place(lift, touch.t):
                    self._returns.append((card, lift, pile, (touch.t, touch.frame)))
                    return

    def _still_in_place(self, lift: Lift, t: float) -> bool:
        """The lifted card's place lay clear at `t` (no hand over it, no change pending: the tracker saw it
        unchanged, still showing the card) though the lift is dated before `t` (to its player's first visit
        there): the card left in a later visit, so the hand that touched a spit pile at `t` held no card."""
        runs = self._unsettled_runs.get(lift.zone, ())
        if not runs or t < runs[0][0] or t >= self._seen[lift.zone][0]:
            return False
        return not any(start - self.frame_interval / 2 <= t <= end + self.frame_interval / 2 for start, end in runs)

    def _taking_back(self, pile: str, touch: Touch) -> bool:
        """`touch` is its hand taking back a card of its own flagged on `pile` (lying there, or
        gone from there by the time the pile was next read), or refused there and not yet seen back
        in its place (within `TAKE_BACK_S`: the touches until it was seen back)."""
        for (p, _), (side, since) in self._flagged.items():
            if p == pile and side == touch.side and since < touch.t:
                return True
        for _, side, p, since, back in self._refused:
            if p == pile and side == touch.side and since < touch.t <= min(back, since + TAKE_BACK_S) \
                    and not self._refused_card_off(pile, since, touch.t):
                return True
        took = self._took_back.get(pile)
        return took is not None and took[0] == touch.side and took[1] < touch.t <= took[2]

    def _refused_card_off(self, pile: str, since: float, t: float) -> bool:
        """`pile` was read showing the card a refusal at `since` was judged on again after it and before
        `t`: the card refused is off it (a touch of its player's from then on lays another card). That card
        is the top at `since`, a card judged there at that very time (a race the other player won by less
        than a frame) included."""
        under = self._expected_in(self._state_at(since), pile)
        return any(since < when < t and seen == under for seen, when in self._pile_reads.get(pile, ()))

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
                    self._lifted[code] = Lift(lift.player, lift.zone, again)
                    self._refused = [(*item[:4], min(item[4], again)) if item[0] == code else item
                                     for item in self._refused]
            mine = [(code, lift) for code, lift in self._lifted.items()
                    if lift.player == touch.side and not lift.attempted and lift.t <= touch.t]
            rivals = [t for t in touches if t.contact and t.zone == touch.zone and t.side != touch.side]
            taking_back = self._taking_back(touch.zone, touch) or (bool(mine) and self.readings.get(touch.zone) == mine[0][0])
            when = (touch.t, touch.frame)
            last = len(mine) == 1 and self._last_stock_card(mine[0][1])
            if len(mine) != 1 or rivals or taking_back or self._touched_since(touch.side, mine[0][1].t, touch.t, free=last) \
                    or self._rival_touch(touch.zone, touch.side, touch.t) or self._tied(touch.zone, touch.side, when) \
                    or self._rival_hidden(touch.zone, touch.side, touch.t):
                continue  # a hand on a card of its own already seen there, or flagged there, takes it back
            code, lift = mine[0]
            card = parse_card(code)
            if last:
                if self.state.check(Play(lift.player, card, lift.zone, touch.zone)) is None:
                    self._last_laid.append((card, lift, touch.zone, when))
                continue  # the player's last stock card ends the deal: called once the table is read
            moved |= self._earlier(touch.zone, card, when)
            if self.state.check(Play(lift.player, card, lift.zone, touch.zone)) is not None:
                continue  # a refusal is called once the card is seen there, or seen back in its place
            moved |= self._attempt(lift.player, card, lift.zone, touch.zone, when, visible=True)
        return moved

    def _last_stock_card(self, lift: Lift) -> bool:
        """`lift`'s card is its player's last stock card (the engine has no other in their stock places):
        laying it ends the deal."""
        names = self.rules.stock_names[self.rules.player_index[lift.player]]
        return len([z for z in names if self.state.pile(z)]) == 1 and len(self.state.pile(lift.zone)) == 1

    def _laid_last_unseen(self, card: Card, zone: str, player: str, shown: float) -> None:
        """A player's last stock card found lifted only now, after their hand touched a spit pile where
        it fits since its place was last read showing it (the arm over the place all along: the hand
        that lays the deal's last card may stay on the pile until the slap, and the place is read
        only once the piles are gathered), was laid at the first such contact laying no card judged
        (`_last_laid`)."""
        names = self.rules.stock_names[self.rules.player_index[player]]
        if len([z for z in names if self.state.pile(z)]) != 1 or len(self.state.pile(zone)) != 1:
            return
        touches = [touch for pile in self._piles for touch in self._touches.get(pile, ())
                   if touch.contact and touch.side == player and touch.t > shown
                   and (pile, player, touch.t) not in self._used]
        first = min(touches, key=lambda touch: touch.t, default=None)
        if first is None or self.state.check(Play(player, card, zone, first.zone)) is not None:
            return
        self._lifted[card.code] = lift = Lift(player, zone, min(self._lifted[card.code].t, first.t))
        self._last_laid.append((card, lift, first.zone, (first.t, first.frame)))

    def _lay_last_cards(self, final: bool = False) -> None:
        """A player's last stock card laid where it fits (`_last_laid`) is played at its touch once it
        has not come back for `TIE_WAIT_S` (or the stream has ended: `final`) with its place still read
        empty and the pile not read since the touch, or read only empty (the hand that laid it may stay
        on the pile until both slap it, and the piles are gathered): the deal ends there. A card seen
        since, on the pile or back in its place, is judged as seen."""
        waiting = []
        for card, lift, pile, when in self._last_laid:
            if self._lifted.get(card.code) is not lift or lift.attempted or self.state.phase != "play" \
                    or (self._seen[pile][0] > when[0] and self.readings.get(pile) != EMPTY) \
                    or self.readings.get(lift.zone) != EMPTY:
                continue
            if self._now[0] - when[0] < TIE_WAIT_S and not final:
                waiting.append((card, lift, pile, when))
            elif self._attempt(lift.player, card, lift.zone, pile, when, visible=True):
                self._reconcile()
        self._last_laid = waiting

    def _lifted_again(self, code: str, lift: Lift, touch: Touch) -> float | None:
        """A card judged refused (`lift` attempted) is back in its player's hand and lifted again, its
        hand touching a spit pile with it now (`touch`): it lies on no pile, is flagged nowhere, its
        place shows what lies under it, and the hand touched the place after its last contact with a
        spit pile (the card was taken back to it, too briefly to be read there, and picked up again).
        Not while a spit pile shows it settled under its top (`Snapshot.under`, its index corner read
        past the card laid on it since): it still lies there, and the hand comes to take it back.
        The time of that touch on the place, else None."""
        if code in (self.readings.get(pile) for pile in self._piles) or any(key[1] == code for key in self._flagged) \
                or code in self._under_seen.values():
            return None
        top = self.state.top(lift.zone)
        if top is None or top.code != code or self.readings.get(lift.zone) != self._under(lift.zone):
            return None
        laid = [t.t for pile in self._piles for t in self._touches.get(pile, ())
                if t.contact and t.side == lift.player and lift.t < t.t < touch.t]
        picked = [t.t for t in self._touches.get(lift.zone, ())
                  if laid and t.contact and t.side == lift.player and max(laid) < t.t < touch.t]
        return picked[-1] if picked else None

    def _read_under(self, pile: str, card: Card, player: str, t: float, *, exact: bool = False) -> bool:
        """What the engine has under `player`'s `card` laid on `pile` at `t` is what the camera
        last saw there before it, or what the moves judged since then put there (no hand touched
        the pile meanwhile without a card judged): the position a refusal is judged on was read.
        Unless `exact`, another card read there than the engine's will do if the card would be
        refused on it too. A card refused on the pile and not yet back in its place is not what lay
        under it (it is no part of the pile: the card is judged on the one under that)."""
        refused = {item[0] for item in self._refused if item[2] == pile and item[3] < t and item[4] > t}
        reads = [read for read in self._pile_reads.get(pile, ()) if read[0] != card.code and read[1] < t
                 and read[0] not in refused]
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
        return not self._fits_on(card, under)

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

    def _came_back(self, code: str, lift: Lift, back: float) -> None:
        """A lifted card is back on its stock pile, first seen there at `back`: if its player's
        hand touched a spit pile meanwhile, at least `RETURN_MIN_S` before (no hand carries a card back
        faster), the card touched it (and is judged there); else it was only picked up (a touch from `back`
        on is the hand's next card)."""
        for pile in self._piles:
            for touch in self._touches.get(pile, ()):
                if self._free(pile, touch, lift.player) and lift.t <= touch.t <= back - RETURN_MIN_S \
                        and not self._taking_back(pile, touch) and not self._lifted_later(code, lift, touch.t) \
                        and not self._still_taken_back(code, pile, touch.t):
                    self._returns.append((parse_card(code), lift, pile, (touch.t, touch.frame)))
                    return

    def _back_unseen(self, zone: str, seen: str, shown: float | None, t: float) -> None:
        """Stock place `zone`, hidden under its player's hand since it was last read at `shown`, is
        read again at `t` showing the same face-up top, and that card was read on a spit pile meanwhile,
        if only for a frame (`_read_on_pile`): it was lifted, laid there and brought back with its place
        never read without it (the arm over the place all along), so it is judged at its player's last
        free contact with that pile up to two frames after that read (refused if it does not fit there), as a card seen
        lifted that came back. Not where another card of theirs was in a hand meanwhile, where another
        place of theirs was not read again since the touch (a card lifted unseen there may have been
        the one laid), where the pile does not show the engine's top or took a card of theirs or a spit
        card since (`_left_as_it_was`), at a stalemate, shortly after a card of theirs was judged on that
        pile (the touch may take it back), or where the pile showed a card the engine does not have there."""
        if shown is None or self.state.phase != "play" or seen not in CARD_CODES or seen in self._lifted \
                or self._expected(zone) != seen or t - shown < 2 * RETURN_MIN_S:
            return
        owner = self._owner[zone]
        if not any(touch.side == owner and shown <= touch.t < t for touch in self._touches.get(zone, ())):
            return
        if any(lift.player == owner and not lift.attempted for lift in self._lifted.values()) \
                or any(getattr(move, "player", None) == owner and not isinstance(move, TurnUp) and when >= shown
                       for when, move in self._made):
            return  # another card of theirs was in that hand meanwhile: the touch may be its
        lift = Lift(owner, zone, shown)
        glimpse = self._read_on_pile.get(seen)
        if glimpse is None or not shown < glimpse[1] < t:
            return
        pile = glimpse[0]
        touches = [touch for touch in self._touches.get(pile, ())
                   if self._free(pile, touch, owner) and shown <= touch.t <= min(t - RETURN_MIN_S, glimpse[1] + 2 * self.frame_interval)
                   and not self._taking_back(pile, touch) and not self._still_taken_back(seen, pile, touch.t)]
        if not touches:
            return
        touch = touches[-1]
        others = [z for z in self.rules.stock_names[self.rules.player_index[owner]] if z != zone]
        if any(self._read_clear.get(other, -math.inf) < touch.t for other in others):
            return
        if not self._left_as_it_was(pile, owner, touch.t):
            return
        position = self._state_at(touch.t)
        top = position.top(zone)
        if top is None or top.code != seen or not any(isinstance(move, Play) for move in position.useful_moves()):
            return  # not yet face up there at the touch; or a stalemate: hands go to the piles to lay spit cards
        if any(used_pile == pile and side == owner and touch.t - TAKE_BACK_S <= used < touch.t
               for used_pile, side, used in self._used):
            return  # a card of theirs judged there shortly before: the touch may take it back
        if any(shown <= when <= touch.t and read != self._expected_in(self._state_at(when), pile)
               for read, when in self._pile_reads.get(pile, ())):
            return  # the pile showed a card the engine does not have there: the touch may take it back
        self._returns.append((parse_card(seen), lift, pile, (touch.t, touch.frame)))

    def _left_as_it_was(self, pile: str, player: str, t: float) -> bool:
        """`pile`, read clear since `player`'s touch at `t`, shows the engine's top, and no card has
        gone there since `t` but the other players' cards judged played on it (no spit either, and
        none within `FETCH_S` before the touch: its slap): the touch left no card of `player`'s there."""
        if self._read_clear.get(pile, -math.inf) <= t or self.readings.get(pile) != self._expected(pile):
            return False
        for when, move in self._made:
            if isinstance(move, Spit) and when >= t - FETCH_S:
                return False
            if isinstance(move, Play) and move.to == pile and when >= t and move.player == player:
                return False
        return True

    def _still_taken_back(self, code: str, pile: str, t: float) -> bool:
        """`code` was refused on `pile` less than `TAKE_BACK_S` before `t` and not yet seen back in its place:
        its player's hand touching the pile at `t` is still taking it back, not laying it there again
        (a card taken back unseen is not refused twice on one pile)."""
        return any(card == code and where == pile and since < t <= min(back, since + TAKE_BACK_S)
                   for card, _, where, since, back in self._refused)

    def _lifted_later(self, code: str, lift: Lift, t: float) -> bool:
        """Another card of `lift`'s player, not judged yet, was seen lifted after `lift` and before `t`:
        a touch at `t` is that card's (the one the hand took last)."""
        return any(other != code and later.player == lift.player and not later.attempted and lift.t < later.t <= t
                   for other, later in self._lifted.items())

    def _judge_returns(self) -> None:
        """Cards taken back are judged once the pile they touched has been clear of hands long
        enough for the tracker to have settled what lies on it (a card laid just before may show),
        and, where it shows what the engine does not have, once that is explained (not while the
        referee waits for a place to be read: the card under it may be one turned there unseen); not
        at a touch that laid another card judged since (one hand lays one card at a time), nor while
        the pile shows a change not read yet and has not been read clear since the touch (it may
        have laid another card there); not refused at a touch after which the pile showed a card the
        engine has nowhere (`_unknown_laid`: that touch laid it)."""
        ready = [item for item in self._returns if self._clear(item[2]) and not (
            item[2] in self._left_unread and self._read_clear.get(item[2], -1.0) < item[3][0]) and not (
            self._deferred and self.readings.get(item[2]) != self._expected(item[2]))]
        if not ready:
            return
        self._returns = [item for item in self._returns if item not in ready]
        for card, lift, pile, when in ready:
            if (pile, lift.player, when[0]) in self._used:
                continue  # that touch laid a card judged since: one hand lays one card at a time
            if self.state.phase == "play":
                self._earlier(pile, card, when)
            self._attempt(lift.player, card, lift.zone, pile, when, visible=False, legal_counts=False)
