"""Hand touches and contact dating: when a hand came over, touched or left a zone."""

from __future__ import annotations

import math

from referee.cards import FACE_DOWN, parse_card
from referee.judge.spit.config import (
    FETCH_S,
    LAY_TURN_S,
    SURE_S,
    TOUCH_REACH_S,
    TURN_LAY_S,
    TURNS_APART_S,
    TURN_S,
    Lift,
    When,
)
from referee.observations import CARD_CODES
from referee.rules.spit import MoveToSpace, TurnUp
from referee.tracker import Touch


def made_by(took: tuple[str, float, float] | None, touch: Touch) -> bool:
    """`touch` is one of the hand's touches from laying a card to taking it back (`took`: the side,
    the time it laid it and the time it was seen taken back)."""
    return took is not None and touch.side == took[0] and took[1] <= touch.t <= took[2]


class HandTouches:
    """Dating by hands: the contacts remembered (`_touches`) and the zones' settled stretches. A part of `SpitReferee`, which holds the state."""

    def _when(self, zone: str, side: str | None, seen: When) -> When:
        """The start of the last contact of a hand of `side` (any side: None) with `zone` within
        `TOUCH_REACH_S` before `seen`; else the start of the last time such a hand covered it;
        else `seen` itself (when the new state was first seen lying there). Not the touches of a hand that
        laid a card judged played there and took it back off the pile (`_taken_off`)."""
        cover: When | None = None
        took = self._taken_off.get(zone)
        for touch in reversed(self._touches.get(zone, ())):
            if touch.t > seen[0] or (side is not None and touch.side != side) \
                    or made_by(took, touch):
                continue  # (the hand laid the card it took back off the pile then, and none since)
            if touch.t < seen[0] - TOUCH_REACH_S:
                break
            if touch.contact:
                if cover is not None and touch.t < cover[0] - 0.1:
                    break  # the last hand there covered it without a contact seen
                return touch.t, touch.frame
            if cover is None:
                cover = (touch.t, touch.frame)
        return cover or seen

    def _laid_on_space(self, zone: str, side: str, when: When) -> When:
        """When `side`'s hand laid the card now on the empty place `zone`, dated `when` by `_when`:
        where that is the start of the hand's cover of `zone` (no contact seen there), its first
        contact with another place begun since, up to the first frame the card was seen (a hand
        laying a card on a place beside the one it took it from may be found gripping that one,
        or the card under it)."""
        if self._contact_at(zone, side, when[0]):
            return when
        laid = [touch for name, touches in self._touches.items() if name != zone for touch in touches
                if touch.contact and touch.side == side and when[0] <= touch.t <= self._seen[zone][0]]
        first = min(laid, key=lambda touch: touch.t, default=None)
        return (first.t, first.frame) if first is not None else when

    def _turn_dated(self, player: str, zone: str, touches: list[Touch], seen: When) -> When:
        """When the card stock place `zone` shows turned was turned, from `player`'s contacts there
        since the last move there (`touches`): at the first one after the place was last read settled
        showing its face-down top, or last read so at all (for a frame between an arm's passes: the
        hand turned it later; an earlier one turned nothing, or a card gone since; the vision
        dates a contact with a face-down card from when the hand touched it, not from when it was
        found at rest on the card turned), leaving out a contact that turned nothing (`_turned_nothing`:
        the hand was bringing a card it laid soon after, or turning another card), else at `seen`; not
        before the last move there (one hand, one card at a time: not before the card above it was
        played; and where the touch it dates it by came before that move, as when one touch moves a card
        off the place and turns the next, not before the frame after the place was last read face down
        since that move: `_turned_after_move`). The read does not count if their hand touched a spit pile
        since the first contact, laying no card judged and taking back no card of its own (`_taking_back`:
        that touch lays nothing): a card turned at that one may have gone there. (`seen`
        is not held to after the read: a face-down top misread for a frame over a card turned would
        make the turn late.) Where no contact dates it and `seen` is the card's first sight, no more
        than `TURN_S` after the place was last read face down since the last move there (no hand seen
        there: the hand finder missed the hand turning it, over the place all that while), it was
        turned from the frame after that read on, and is dated there (a turn is dated from when the hand
        touched the card, not from when it left it turned). Where the contact it is dated by began no
        sooner than the card was first read there (`_found_at_rest`), the card was turned before it, at
        most `TURN_S` before: it is dated then, not before the frame after that read, nor before the move."""
        since = self._moved.get(zone, 0.0)
        shown = self._read_clear if self.readings.get(zone) == FACE_DOWN else self._shown_until
        after = max(shown.get(zone, since), self._face_down_read.get(zone, -math.inf))
        if touches and any(self._free(pile, touch, player) and touches[0].t <= touch.t < after
                           and not self._taking_back(pile, touch)
                           for pile in self._piles for touch in self._touches.get(pile, ())):
            after = since
        turning = [touch for touch in touches if touch.t > after and not self._turned_nothing(player, zone, touch.t)]
        turned = (turning[0].t, turning[0].frame) if turning else seen
        read = self._face_down_read.get(zone, -math.inf)
        if not turning and seen == self._seen.get(zone) and since <= read < seen[0] <= read + TURN_S:
            turned = self._shifted(seen, read + self.frame_interval)
        if turning and self._found_at_rest(zone, turned[0]):
            turned = self._shifted(turned, turned[0] - round(TURN_S / self.frame_interval) * self.frame_interval)
            if since <= read and turned[0] <= read:
                turned = self._shifted(turned, read + self.frame_interval)
        if turned[0] < since:
            return self._turned_after_move(zone, since, turned)
        return turned

    def _found_at_rest(self, zone: str, t: float) -> bool:
        """A contact with stock place `zone` begun at `t` came no sooner than the card it shows turned now
        (one the engine has nowhere yet) was first read there: the card lay face up already, so the hand
        was found at rest on the card it had turned (within `TURN_S` before)."""
        shown = self.readings.get(zone)
        first = self._first_read.get(zone)
        return shown in CARD_CODES and not self.state.cards()[parse_card(shown)] \
            and first is not None and first[0] == shown and t >= first[1]

    def _turned_nothing(self, side: str, zone: str, t: float) -> bool:
        """The contact of the hand of `side` with face-down place `zone` begun at `t` turned nothing there:
        the hand was bringing a card (`_fetching`) or turning another (`_turning_elsewhere`)."""
        return self._fetching(side, t) or self._turning_elsewhere(side, zone, t)

    def _fetching(self, side: str, t: float) -> bool:
        """The hand of `side` whose contact began at `t` laid a card judged (played or refused on a spit
        pile, or moved into a space) less than `TURN_LAY_S` after it, or less than `LAY_TURN_S` before it:
        a hand takes longer than that to turn a card and lay one, or to lay one and turn one, so that
        contact turned nothing (the hand was bringing that card, or coming back from laying it: the hand
        finder gave the contact to the place beside the one it lifted a card from or laid it on, or to the
        place the hand passed over)."""
        return any(used_side == side and -LAY_TURN_S < laid - t < TURN_LAY_S for _, used_side, laid in self._used) \
            or any(isinstance(move, MoveToSpace) and move.player == side and -LAY_TURN_S < laid - t < TURN_LAY_S
                   for laid, move in self._made)

    def _turning_elsewhere(self, side: str, zone: str, t: float) -> bool:
        """The hand of `side` whose contact with face-down place `zone` began at `t` turned up the card of
        another of its player's places at a contact there less than `TURNS_APART_S` from `t` (a turn-up
        judged, dated by that contact): one hand turns one card at a time, so this contact turned nothing
        (the hand finder gave the contact turning that card to this place as well, or first)."""
        return any(isinstance(move, TurnUp) and move.player == side and move.pile != zone
                   and abs(turned - t) < TURNS_APART_S and self._contact_at(move.pile, side, turned)
                   for turned, move in self._made)

    def _turned_after_move(self, zone: str, since: float, turned: When) -> When:
        """The date of a turn-up at stock place `zone` whose touch (`turned`) began before the last move
        off the place (`since`): the hand that moved the card off turned the next within the same touch.
        The turn came after the move, no sooner than a hand comes back from laying a card to turn one
        (`LAY_TURN_S` after it), and after the place was last read face down since the move (one frame
        after that read: the card still lay face down then)."""
        read = self._face_down_read.get(zone, -math.inf)
        return self._shifted(turned, max(read + self.frame_interval, since + LAY_TURN_S))

    def _shifted(self, when: When, t: float) -> When:
        """Capture time `t` with its frame index counted from `when`'s (frames `frame_interval` apart)."""
        return round(t, 6), when[1] + round((t - when[0]) / self.frame_interval)

    def _turn_when(self, player: str, zone: str) -> When:
        """When `player` turned up the face-down top of `zone` seen turned now (`_turn_dated`), else
        their last touch or cover there (`_when`)."""
        return self._turn_dated(player, zone, self._contacts_since_move(player, zone, self._now[0]),
                                self._when(zone, player, self._now))

    def _contacts_since_move(self, player: str, zone: str, until: float) -> list[Touch]:
        """`player`'s contacts with `zone` after the last move there, up to `until`."""
        since = self._moved.get(zone, 0.0)
        return [t for t in self._touches.get(zone, ()) if t.contact and t.side == player and since < t.t <= until]

    def _face_down_touches(self, player: str, before: float, *, covered: bool = False) -> dict[str, list[Touch]]:
        """Per face-down stock top of `player`'s, their hand's contacts there (with `covered`, its covers
        too) since the last move there and before `before`."""
        s = self.state
        return {zone: [t for t in self._touches.get(zone, ()) if (t.contact or covered) and t.side == player
                       and self._moved.get(zone, 0.0) < t.t < before]
                for zone in self.rules.stock_names[self.rules.player_index[player]] if s.pile(zone) and not s.face_up(zone)}

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

    def _last_touch(self, zone: str, seen: When, sides: set[str] | None = None, *,
                    shown: str | None = None) -> tuple[str, When] | None:
        """The side and first contact of the hand that touched `zone` last before `seen` (one of
        `sides`, if given), leaving out a hand that was taking back a card flagged there and, with
        `shown` (the card read there at `seen`), a contact that laid another card read on top since
        (`_laid_card_read`)."""
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
            if shown is not None and self._laid_card_read(zone, touch, shown, seen[0]):
                continue
            return touch.side, (touch.t, touch.frame)
        return None

    def _laid_card_read(self, zone: str, touch: Touch, shown: str, before: float) -> bool:
        """`touch` is the last contact with spit pile `zone` before a card other than `shown` (and
        other than the engine's top there) was read settled on it, before `before`: that touch laid
        that card, which was taken off again since, showing `shown` under it. One hand lays one card
        at a time: `shown` lay there before that touch, and is not its card. Not where another player's
        contact came within a frame of `touch` and only that player's hand was seen over the pile from that
        card's read until `shown` was: that hand took the card away, a player takes back only their own
        card, so their contact laid it and `touch` laid `shown` under it (`_taken_by_other`)."""
        top = self.state.top(zone)
        touches = self._touches.get(zone, ())
        for code, t in self._pile_reads.get(zone, ()):
            if not touch.t < t < before or code == shown or code not in CARD_CODES \
                    or (top is not None and code == top.code):
                continue
            if not any(other.contact and touch.t < other.t < t for other in touches) \
                    and not self._taken_by_other(zone, touch, t, before):
                return True
        return False

    def _taken_by_other(self, zone: str, touch: Touch, read: float, before: float) -> bool:
        """Another player's contact with spit pile `zone` came within a frame of `touch` (`_close`), and
        the hands seen over the pile after a card was read there at `read` and before `before` were all
        that player's: their hand took that card away."""
        took = {other.side for other in self._touches.get(zone, ()) if read < other.t < before}
        return len(took) == 1 and touch.side not in took and any(
            other.contact and other.side in took and self._close(other.t, touch.t)
            for other in self._touches.get(zone, ()))

    def _last_cover(self, zone: str, seen: When, sides: set[str] | None = None) -> tuple[str, When] | None:
        """The side and the first frame of the last hand (one of `sides`, if given) seen over `zone`
        less than `TOUCH_REACH_S` before `seen`, where no contact was seen."""
        for touch in reversed(self._touches.get(zone, ())):
            if seen[0] - TOUCH_REACH_S <= touch.t <= seen[0] and not touch.contact \
                    and (sides is None or touch.side in sides):
                return touch.side, (touch.t, touch.frame)
        return None

    def _frame_at(self, t: float) -> int:
        """The index of the frame of capture time `t`, from a touch remembered then (else the current one)."""
        return next((touch.frame for touches in self._touches.values() for touch in touches if touch.t == t), self._now[1])

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

    def _contact_at(self, zone: str, side: str, t: float) -> bool:
        """A contact of `side`'s hand with `zone` began at `t` (not only a hand seen over it)."""
        return any(touch.contact and touch.side == side and touch.t == t for touch in self._touches.get(zone, ()))

    def _after(self, t: float, when: When) -> When:
        """The frame after capture time `t`, dated from `when` (a card laid on one that touched at `t`)."""
        step = round((t - when[0]) / self.frame_interval) + 1
        return t + self.frame_interval, when[1] + step

    def _free(self, pile: str, touch: Touch, side: str) -> bool:
        """`touch` is a contact of `side`'s hand with `pile` that laid no card judged already, nor began
        less than `FETCH_S` after that hand's contact laying a card judged on another spit pile (the
        hand over both piles: it lays one card at a time, fetching the next from its stock between)."""
        return touch.contact and touch.side == side and (pile, side, touch.t) not in self._used and not any(
            other != pile and used_side == side and 0 <= touch.t - t < FETCH_S for other, used_side, t in self._used)

    def _touched_since(self, side: str, since: float, before: float, *, free: bool = False) -> bool:
        """A hand of `side` touched a spit pile between `since` and `before` (its card went there);
        with `free`, only a touch that laid no card judged (one hand lays one card at a time)."""
        return any(t.contact and t.side == side and since <= t.t < before
                   and not (free and (pile, side, t.t) in self._used)
                   for pile in self._piles for t in self._touches.get(pile, ()))

    def _carried_no_longer(self, lift: Lift, t: float) -> bool:
        """`lift`'s card left its place (read without it since) more than `TOUCH_REACH_S` before `t`: no
        hand carries a card that long (`_carried`), so it went where the camera missed it (put down
        unseen, or its place misread), and a touch of its player's hand at `t` did not lay it."""
        return t - max(lift.t, self._seen[lift.zone][0]) > TOUCH_REACH_S

    def _carrying(self, player: str, t: float) -> bool:
        """`player`'s hand carried a stock card seen lifted, not judged yet, at `t` (lifted before it and
        carried no longer than a hand carries one): a card turned unseen was not the one it laid then."""
        return any(lift.player == player and not lift.attempted and lift.t <= t and not self._carried_no_longer(lift, t)
                   for lift in self._lifted.values())

    def _touched_again(self, side: str, t: float) -> bool:
        """A hand of `side` touched a spit pile again after its contact at `t` (more than a frame later,
        not taking back a card of its own): a card lifted unseen under its arm before `t`, never seen on
        a pile, may have been laid at that later touch (another card at `t`), so it is not refused at `t`."""
        return any(touch.contact and touch.side == side and touch.t - t >= self._tie_s and not self._taking_back(pile, touch)
                   for pile in self._piles for touch in self._touches.get(pile, ()))

    def _touched_both(self, side: str, pile: str, t: float) -> bool:
        """A contact of `side`'s hand on `pile` at `t` was also reported on another spit pile within a
        frame of it (the hand finder gave the one contact to both piles, or moved it from one to the
        other): which pile the card went to is not known, so a card not seen there is not refused on `pile`."""
        return any(touch.contact and touch.side == side and self._close(touch.t, t)
                   for other in self._piles if other != pile for touch in self._touches.get(other, ()))

    def _rival_touch(self, pile: str, player: str, t: float) -> bool:
        """Another player's hand was over `pile` less than the race window before `t` (or within a
        frame after it: contacts are dated to about a frame) and laid no card judged yet: touching it while holding no card seen lifted (those are
        judged in touch order; not one it carried no longer: `_carried_no_longer`), or over it without a contact seen while holding one, or a card
        turned and taken unseen (`_turned_away`), not seen touching this pile about then (a hand over a pile
        just before or after its contact there lays its card at that contact, judged or not), and touching no
        other spit pile since; no other
        card than the one there now was read there since (its card was on top, and is gone), and
        its card was not seen landing on the other spit pile (`_laid_elsewhere`). Its card may lie
        under `player`'s, so `player`'s card waits for it (at most `TIE_WAIT_S`)."""
        now = self.readings.get(pile)
        reads = self._pile_reads.get(pile, ())
        window = [touch for touch in self._touches.get(pile, ()) if touch.side != player
                  and t - self.config.race_window_s < touch.t < t + self._tie_s and (pile, touch.side, touch.t) not in self._used
                  and not self._taking_back(pile, touch)
                  and not any(when > touch.t and seen != now for seen, when in reads)
                  and not self._laid_elsewhere(pile, touch)]
        for touch in window:
            holding = self._carrying(touch.side, touch.t) or self._turned_away(touch.side, touch.t)
            if touch.contact and not any(lift.player == touch.side and lift.t <= touch.t
                                         and not self._carried_no_longer(lift, touch.t)
                                         for lift in self._lifted.values()):
                return True
            # its card laid at that contact, judged or not
            if holding and not any(other.contact and other.side == touch.side
                                   and t - self.config.race_window_s < other.t < t + self._tie_s
                                   for other in self._touches.get(pile, ())) \
                    and not any(other.contact and other.side == touch.side and other.t >= touch.t
                                for name in self._piles if name != pile for other in self._touches.get(name, ())):
                return True
        return False

    def _laid_elsewhere(self, pile: str, touch: Touch) -> bool:
        """The hand that made `touch` on `pile` came over another spit pile too, less than the race
        window before or a frame or two after (over both at once), and a new card was read there after
        the touch, less than `TOUCH_REACH_S` later: one hand lays one card, so the card it held went
        there (its contact put on the wrong pile), and none lies under the card on `pile`."""
        window = self.config.race_window_s
        for other in self._piles:
            if other == pile or not any(near.side == touch.side and -window <= near.t - touch.t <= 2.5 * self.frame_interval
                                        for near in self._touches.get(other, ())):
                continue
            before = self._expected_in(self._state_at(touch.t, before=True), other)
            if any(seen in CARD_CODES and seen != before and touch.t < when <= touch.t + TOUCH_REACH_S
                   for seen, when in self._pile_reads.get(other, ())):
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
        frame (`_close`): which came first is not seen (the one read on top with no hand over the
        pile was second; while a hand is back over it, a card taken back was)."""
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

    def _hand_seen(self, pile: str, player: str, t: float) -> bool:
        """A hand of `player` was seen over `pile` at most `TOUCH_REACH_S` before `t` (the card
        judged at `t` was seen being laid, not found there once the view cleared)."""
        return any(touch.side == player and t - TOUCH_REACH_S <= touch.t <= t for touch in self._touches.get(pile, ()))

    def _blind(self, since: float, t: float) -> bool:
        """The whole view was blocked at some time between `since` and `t` (something over the
        table): cards may have landed unseen."""
        return any(end >= since and start <= t for start, end in self._blocked_runs)
