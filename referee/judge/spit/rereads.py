"""Re-reading the engine's position from the table when it shows what no move explains, and recounts."""

from __future__ import annotations

import math

from referee.cards import FACE_DOWN, Card, parse_card
from referee.errors import IllegalMove
from referee.judge.spit.config import (
    RECOUNT,
    RESYNC_S,
    TAKE_BACK_S,
    Lift,
    When,
)
from referee.observations import CARD_CODES, EMPTY
from referee.rules.spit import ImpossiblePosition, Play, SpitMove, SpitState, TurnUp
from referee.tracker import Touch


class Rereads:
    """The table read again (`_resync`) and the counts it guessed corrected. A part of `SpitReferee`, which holds the state."""

    def _shows_spit_card(self, pile: str) -> bool:
        """Spit pile `pile` shows a card that is no stock top (a spit card, or a card not read yet)."""
        seen = self.readings.get(pile)
        return seen not in CARD_CODES or self._stock_top_of(parse_card(seen)) is None

    def _unexplained(self) -> set[str]:
        """The settled zones that show what no move explains: not the engine's card, nor a stock
        place whose top is in a hand, nor a card flagged as illegal on a pile (unless it has lain
        there longer than `RESYNC_S`: a card refused is taken back), nor a spit card waiting for
        the other spit cards (unless it has lain there longer than `RESYNC_S` and `TAKE_BACK_S`: the
        other player may first take back a card refused)."""
        lifted_from = {lift.zone for lift in self._lifted.values()}
        odd = set()
        for zone, seen in self.readings.items():
            if seen == self._expected(zone) or zone in lifted_from:
                continue
            flag = self._flagged.get((zone, seen))
            if flag is not None and self._now[0] - flag[1] < RESYNC_S:
                continue
            pending = self._pending_spit.get(zone)
            if pending is not None and pending[0] == seen and self._now[0] - pending[1][0] < RESYNC_S + TAKE_BACK_S:
                continue
            if zone in self._owner and self.state.top(zone) is not None and seen == self._under(zone):
                continue
            if zone in self._owner and self._buried(zone, seen):
                continue
            odd.add(zone)
        return odd

    def _note_odd(self) -> None:
        """The zones showing what no move explains now (`_odd`), each with the time it was first
        found so (`_odd_since`: kept while it goes on, forgotten once the zone is explained)."""
        self._odd = self._unexplained() if self.state.phase == "play" else set()
        self._odd_since = {zone: self._odd_since.get(zone, self._now[0]) for zone in self._odd}

    def _odd_for(self) -> float:
        """How long the table has shown what no move explains, as far as a re-read goes (0 when it
        does not): since the first zone now unexplained was found so; while the referee waits for a
        place to be read (`_deferred`: a card laid may be one turned there unseen), no longer than
        the newest of them has been (a card laid a moment ago beside a place long unexplained may
        still be explained by a move). A card flagged or waiting on a pile counts from when it was
        laid (it has had its wait), none from before the table was last read again."""
        if not self._odd:
            return 0.0
        first = min(self._odd_since.get(zone, self._now[0]) for zone in self._odd)
        if not self._deferred:
            return self._now[0] - first
        newest = first
        for zone in self._odd:
            seen = self.readings.get(zone)
            flag = self._flagged.get((zone, seen))
            pending = self._pending_spit.get(zone)
            since = flag[1] if flag is not None else pending[1][0] if pending is not None and pending[0] == seen \
                else self._odd_since.get(zone, self._now[0])
            newest = max(newest, since, self._resynced_at)
        return self._now[0] - newest

    def _odd_stock(self) -> set[str]:
        """The stock places that show what no move explains (`_unexplained`), leaving out one still
        under a hand, or changed and not read yet, and not read since a move judged there took its
        card (its reading is the card that left it: the place is not read yet, not misread)."""
        return {zone for zone in self._unexplained() if zone in self._owner
                and ((self._clear(zone) and zone not in self._left_unread) or self._moved.get(zone, -1.0) <= self._seen[zone][0])}

    def _unread(self, zone: str) -> bool:
        """`zone` is a spit pile whose last read is older than the move judged there at a hand's
        touch less than `RESYNC_S` ago (the card laid is not read yet): not a read to go by."""
        moved = self._moved.get(zone, -1.0)
        return zone in self.rules.pile_index and moved > self._seen[zone][0] and self._now[0] - moved < RESYNC_S

    def _stale(self, zone: str) -> bool:
        """`zone` is a stock place not read (settled, no hand over it) since a move judged there: what it
        last showed is from before that move (an arm over it all along), not a read to go by."""
        return zone in self._owner and self._read_clear.get(zone, -math.inf) <= self._moved.get(zone, -math.inf)

    def _buried(self, zone: str, code: str) -> bool:
        """Stock place `zone`, read clear since its last move, shows `code`, a card the engine played from it
        onto a spit pile, read there and covered by the next card read there, which its player's hand
        (`_layers`) touched the pile to lay after `code` was last read there (not the card under it, shown
        as it was taken back): no card comes back from under a pile's top, so the place is misread."""
        read = self._read_on_pile.get(code)
        if read is None or self._stale(zone):
            return False
        pile, t = read
        played = [move.player for _, move in self._made
                  if isinstance(move, Play) and move.card.code == code and move.source == zone and move.to == pile]
        if not played or not any(card is not None and card.code == code for card in self.state.pile(pile)[:-1]):
            return False
        cover = next(((seen, when) for seen, when in self._pile_reads.get(pile, ()) if when > t and seen != code), None)
        return cover is not None and cover[0] in CARD_CODES and any(
            touch.contact and t < touch.t < cover[1] and touch.side in self._layers(pile, cover[0], played[-1])
            for touch in self._touches.get(pile, ()))

    def _resync(self) -> None:
        """The table has shown what no move explains for `RESYNC_S`: the engine's position is read
        again from the table (the camera-state constructor: counts kept from the engine where
        the table agrees, visible tops as seen, the spit cards making up the deck)."""
        s = self.state
        r = self.rules
        if not any(self.readings.get(pile) in CARD_CODES for pile in self._piles):
            self._between_deals(sorted(self._odd))  # the spit piles gathered: the deal ended unseen
            return
        stocks: dict[str, list[tuple[int, str | None]]] = {}
        on_table = 0
        for i, player in enumerate(self._players):
            places: list[tuple[int, str | None]] = []
            for zone in r.stock_names[i]:
                seen = self.readings.get(zone, EMPTY)
                if self._stale(zone) or self._buried(zone, seen):
                    seen = self._expected(zone)
                count = self._reread_count(zone, seen)
                places.append((count, seen if seen in CARD_CODES else None))
                on_table += count
            stocks[player] = places
        piles: dict[str, tuple[int, str]] = {}
        for pile in self._piles:
            seen = self.readings.get(pile, EMPTY)
            flag = self._flagged.get((pile, seen))
            if flag is not None and self._now[0] - flag[1] < TAKE_BACK_S:  # refused or doubted there just now,
                seen = next((card for card, _ in reversed(self._pile_reads.get(pile, [])[:-1])  # to be taken back:
                             if card != seen and card in CARD_CODES), seen)  # what it lies on
            if seen in CARD_CODES:
                piles[pile] = (max(len(s.pile(pile)), 1), seen)
                on_table += piles[pile][0]
        spit = {p: s.spit_count(p) for p in self._players}
        spare = r.total_cards - on_table - sum(spit.values())
        richest = max(self._players, key=lambda p: spit[p])
        spit[richest] = max(0, spit[richest] + spare)
        emptied = [p for p in self._players if not any(count for count, _ in stocks[p])]
        ender = emptied[0] if len(emptied) == 1 and not r.refilled_singles else None
        laid = self._laid_unjudged()
        if not self._set_position(stocks, piles, spit, sorted(self._odd), ended_by=ender):
            return
        self._resync_plays.extend(laid)
        self._settle_resync_plays()
        if ender is not None:
            self._deal_ended(self.state, self._emptied_at(ender))
        self._odd_since.clear()
        self._lifted.clear()
        self._flagged.clear()
        self._refused.clear()
        self._unsure.clear()
        self._moved = dict.fromkeys(self._owner, self._now[0])
        self._reread_from = {zone: self._read_clear.get(zone, -math.inf) for zone in self._owner if not self._clear(zone)}
        for zone in self._reread_from:
            kept = self._touches.get(zone, [])
            touch = next((k for k in kept if self._begun_unread(k)), None)
            if touch is not None:
                self._move_back_before(touch, kept)

    def _reread_count(self, zone: str, seen: str) -> int:
        """How many cards a re-read counts at stock place `zone` showing `seen`: none where it shows
        none; one fewer than the engine has where the engine's face-up top is gone for good (the place
        shows another card, turned there or moved into it once it was empty, its player's hand having
        been over it since the last move there: no card goes back under a stock place's top, and with
        no hand there it is a misread; or it shows a face-down card and its top is read elsewhere on the
        table, not in a hand that may bring it back, refused); else the engine's count (at least one)."""
        s = self.state
        count = len(s.pile(zone))
        if seen == EMPTY:
            return 0
        top = s.top(zone)
        if top is None or not s.face_up(zone) or seen == top.code:
            return max(count, 1)
        since = self._moved.get(zone, 0.0)
        handled = any(touch.side == self._owner[zone] and touch.t > since for touch in self._touches.get(zone, ()))
        elsewhere = any(code == top.code for name, code in self.readings.items() if name != zone)
        if (seen in CARD_CODES and handled) or (seen == FACE_DOWN and elsewhere):
            return max(count - 1, 1)
        return max(count, 1)

    def _begun_unread(self, touch: Touch) -> bool:
        """`touch` is a contact with a stock place begun before the last re-read of the table, while the
        place was under the hand (after its last clear read, which the re-read took it from): the
        re-read judged the place by what it showed before the contact."""
        read = self._reread_from.get(touch.zone)
        return touch.contact and read is not None and read < touch.t < self._resynced_at

    def _reported_after_reread(self, touch: Touch, kept: list[Touch]) -> None:
        """A contact with a stock place reported after the last re-read of the table but begun before
        it, while the place was under the hand (`_begun_unread`), and no move judged there since: the
        contact is judged by when it began, not when the vision reported it (a hand turning a card is
        often reported only once it rests on the card turned), so it counts as made after the place's
        last move (`_moved` moved back to just before it, as the re-read does for such contacts known
        then; the contacts before it still do not count)."""
        if not self._begun_unread(touch) or self._moved.get(touch.zone) != self._resynced_at \
                or self._now[0] <= self._resynced_at:
            return
        self._move_back_before(touch, kept)

    def _move_back_before(self, touch: Touch, kept: list[Touch]) -> None:
        """The last move at `touch`'s place, as a re-read set it, moved back to just before `touch` (not
        before the place's last clear read, nor before a contact kept there that came before `touch`)."""
        self._moved[touch.zone] = max([self._reread_from[touch.zone]] + [k.t for k in kept if k.t < touch.t])

    def _note_laid(self, pile: str, code: str, seen: When) -> None:
        """Remember a player's face-up stock top read on `pile` at `seen` (if only for a frame) with their
        contact there before it, made after the card left its place (`_laid_seen`: the first such read
        of each card, the pile's last few)."""
        if code not in CARD_CODES or (pile, code) in self._laid_seen:
            return
        source = self._stock_top_of(parse_card(code))
        if source is None:
            return
        when = self._when(pile, source[0], seen)
        if self._contact_at(pile, source[0], when[0]) and not self._in_place_after(source[1], code, when[0], seen[0]):
            self._laid_seen[pile, code] = (source[0], source[1], when, seen[0])
            for key in [key for key in self._laid_seen if key[0] == pile][:-4]:
                del self._laid_seen[key]

    def _laid_unjudged(self) -> list[tuple[str, str, str, str, When, float]]:
        """At a re-read, the stock tops read on a spit pile that no move explained (not refused there),
        gone from their places, now on top there or read nowhere: each may be a play its player's
        contact made (card, player, place, pile, contact, first read there)."""
        found = []
        shown = set(self.readings.values())
        for (pile, code), (player, zone, when, first) in self._laid_seen.items():
            top = self.state.top(zone)
            if (self.readings.get(pile) == code or code not in shown) and self._expected(pile) != code \
                    and (pile, code) not in self._flagged and top is not None and top.code == code \
                    and self.readings.get(zone) != code:
                found.append((code, player, zone, pile, when, first))
        self._laid_seen.clear()
        return found

    def _settle_resync_plays(self) -> None:
        """The plays found at a re-read (`_resync_plays`) are logged once the card has stayed: still on
        top of its pile `TAKE_BACK_S` after it was first read there, or covered (the pile read showing
        another card than the one it lay on, after the hand that laid that one touched it, or another
        player's); one taken back (the pile showing again the card it lay on, or a card laid before it,
        or nothing new read there by then or by the deal's end) is dropped."""
        waiting = []
        for item in self._resync_plays:
            code, player, zone, pile, when, first = item
            reads = self._pile_reads.get(pile, [])
            under = [seen for seen, t in reads if t < first and seen != code][-1:]
            over = [(seen, t) for seen, t in reads if t > first and seen != code][:1]
            stayed = self.readings.get(pile) == code and self._now[0] - first >= TAKE_BACK_S
            covered = bool(over) and [over[0][0]] != under and any(
                touch.contact and touch.side in self._layers(pile, over[0][0], player) and first < touch.t < over[0][1]
                for touch in self._touches.get(pile, ()))
            if stayed or covered:
                self._emit("play", when, player=player, card=code, to=pile, resynced=True, **{"from": zone})
            elif not over and self._now[0] - first < TAKE_BACK_S and self.state.phase == "play":
                waiting.append(item)
        self._resync_plays = waiting

    def _layers(self, pile: str, code: str, under: str) -> set[str]:
        """Who may have laid `code` on `pile` over a card of player `under`: the player of the play the
        engine made with it there, or of a play found at a re-read, or whose stock top it is, else any
        other player."""
        played = {move.player for _, move in self._made if isinstance(move, Play) and move.to == pile and move.card.code == code}
        played.update(item[1] for item in self._resync_plays if item[0] == code)
        source = self._stock_top_of(parse_card(code)) if code in CARD_CODES else None
        if source is not None:
            played.add(source[0])
        return played or set(self._players) - {under}

    def _played_second(self, pile: str, after: str) -> None:
        """The card the engine played last on `pile` (the last move found, or followed only by plays and
        turn-ups elsewhere, made again without it: `_last_play_on`) is gone from it and the pile shows `after`: a card
        the engine has nowhere (or another player's face-up stock top) that the other player's hand
        laid there (seen touching the pile, or over it, at a visit that laid no card judged there already:
        `_laid_judged`) less than the race window before it or within
        a frame after, give or take a frame (contacts are dated to about a frame), or at any time before
        it if `after` was read there (if only for a frame) before it touched, unseen under it, no card of theirs having
        touched the pile since; and the card's player's hand came back over the pile (or was never
        seen laying it, or that other contact was within a frame of its own: of two tied cards the
        one read on top came second, and was taken back, its hand seen or not). That card came first
        and the one taken back was refused on it: the play is undone, the card under it played at its
        touch (turned up first, on the place its player's hand turned unseen), and the card taken back
        judged on it at its own touch, on the position then (`legal_counts` off: it was taken back); its
        player's touches on the pile from that one until now laid no other card (`_taken_off`). Where no
        hand was seen laying `after` (`_laid_hidden`: a guess), only if `after` was read under the card
        (`Snapshot.under`) or that card's player's hand was seen over the pile after its touch: else neither
        hand was seen, and `after` laid on top of it unseen is as likely as the card taken back unseen."""
        s = self.state
        if s.phase != "play" or after not in CARD_CODES or not self._made or not self._history:
            return
        index = self._last_play_on(pile)
        if index is None:
            return
        when, move = self._found(index)
        dated = self._history[index][0]
        if not isinstance(move, Play) or move.card.code != self.readings.get(pile) or dated != when:
            return
        rebuilt = self._made_again_without(index)
        if rebuilt is None:
            return
        before, later = rebuilt
        card = parse_card(after)
        rival = self._stock_top_of(card)
        if (rival is None and s.cards()[card]) or (rival is not None and rival[0] == move.player):
            return
        touches = self._touches.get(pile, ())
        read = self._laid_seen.get((pile, after))  # read on the pile, if only for a frame, before the card taken back touched
        laid = [touch for touch in touches if touch.side != move.player  # (its contact seen, or its hand over the pile)
                and not self._laid_judged(pile, touch)
                and (when - self.config.race_window_s - self._tie_s < touch.t <= when + self._tie_s
                     or (read is not None and read[0] == touch.side and read[2][0] == touch.t and read[3] < when))
                and (rival is None or touch.side == rival[0])]
        own = [touch.t for touch in touches if touch.side == move.player]
        back = any(t > when + self.config.race_window_s for t in own) or all(abs(t - when) > self._tie_s for t in own) \
            or any(touch.contact and self._close(touch.t, when) for touch in laid) \
            or not any(touch.side != move.player and touch.t > when + self._tie_s for touch in touches)
        # (tied: the one read on top came second; no other hand there since: the card under it cannot have gone on top)
        hidden = not laid and rival is not None
        if hidden and ((move.card.code, after) in self._under_tops.get(pile, ())
                       or any(t > when + self._tie_s for t in own)):
            laid = self._laid_hidden(pile, card, rival[0], when)
        if not laid or not back or any(touch.contact and touch.side != move.player and touch.t > when + self._tie_s
                                       for touch in touches):
            return  # (its player's hand seen laying it and never seen back: it may lie under that card)
        first = laid[-1]
        side = first.side
        self.state = before
        turned: tuple[str, When] | None = None
        if rival is None:
            deferred = self._deferred  # (a place under a hand is no reason to wait: judged now or never)
            turned = self._turned_unseen(side, first.t) or self._turned_unseen(side, first.t, covered=True) \
                or self._bared(side, (first.t, first.frame))
            self._deferred = deferred
            if turned is None or not self._fits(side, turned[0], card, pile):
                self.state = s
                return
            source = turned[0]
        elif before.check(Play(side, card, rival[1], pile)) is None:
            source = rival[1]
        else:
            self.state = s
            return
        if hidden:
            self._unseen_laid = [*self._unseen_laid[-7:], (pile, first.t)]
        self._unmake(index, later)
        self._withdraw(move, pile, (when, self._frame_at(when)), f"{card} was laid on {pile} before it")
        self._judged.discard((move.player, move.card.code, when))
        self._used.discard((pile, move.player, when))
        self._landed[pile] = [item for item in self._landed.get(pile, []) if item != (when, move.player)]
        if turned is not None:
            self._try(TurnUp(side, source, card), turned[1])
        self._attempt(side, card, source, pile, (first.t, first.frame), visible=True)
        if self.readings.get(move.source) != move.card.code:  # its place never seen without it: it went back unseen
            self._lifted[move.card.code] = Lift(move.player, move.source, when, attempted=True)  # in its player's hand
        self._attempt(move.player, move.card, move.source, pile, (when, self._frame_at(when)), visible=False,
                      legal_counts=False)
        self._taken_off[pile] = (move.player, when, self._now[0])  # its player's touches since took it back

    def _laid_judged(self, pile: str, touch: Touch) -> bool:
        """`touch` laid a card judged on `pile` already: its contact laid one (`_used`), or it is the
        hand seen over the pile within a frame of such a contact of the same hand (the cover and the
        contact of one visit, found in the same frame). One hand lays one card at a time: that visit
        laid no other card."""
        return any(other.side == touch.side and other.contact and (pile, other.side, other.t) in self._used
                   and (other is touch or (not touch.contact and self._close(other.t, touch.t)))
                   for other in self._touches.get(pile, ()))

    def _waited_under(self, pile: str, after: str) -> None:
        """The card read on `pile` while it waited for a rival's card under it (`_ties`) is gone and the
        pile shows `after`, another player's face-up stock top that their hand laid there (seen touching
        the pile, or over it) less than the race window before the waiting card's touch, or within a frame
        after it; the waiting card's player's hand came back over the pile since it was read there, and no
        hand of the other player's touched the pile since their touch. That card came first, unseen under the
        waiting one, which its player took back: it is played at that touch, however long before it showed
        (not at the last touch within `TOUCH_REACH_S` of its first read, which may be the hand taking the
        other card back), so the card taken back is judged on it when it comes back to its place."""
        waiting = self.readings.get(pile)
        if self.state.phase != "play" or waiting not in CARD_CODES or after not in CARD_CODES or waiting == after:
            return
        card, shown = parse_card(waiting), parse_card(after)
        source, rival = self._stock_top_of(card), self._stock_top_of(shown)
        if source is None or rival is None or rival[0] == source[0]:
            return
        player, side = source[0], rival[0]
        read = self._seen[pile]
        when = self._when(pile, player, read)
        touches = self._touches.get(pile, ())
        laid = [touch for touch in touches if touch.side == side
                and when[0] - self.config.race_window_s - self._tie_s < touch.t <= when[0] + self._tie_s]
        if not laid or not any(touch.side == player and touch.t > read[0] for touch in touches) \
                or any(touch.side == side and touch.t > laid[-1].t and touch.contact for touch in touches):
            return
        first = laid[-1]
        self._attempt(side, shown, rival[1], pile, (first.t, first.frame), visible=True)

    def _last_play_on(self, pile: str) -> int | None:
        """The index in `_history` of the last move found, if it is a play onto `pile`, or of the last
        play onto `pile` where the moves found after it lay no card there (plays elsewhere, turn-ups:
        another card judged on another pile since does not hide that one). Only moves found since the
        table was last read again have a history entry (`_found`)."""
        for index in range(len(self._history) - 1, -1, -1):
            move = self._found(index)[1]
            if isinstance(move, Play) and move.to == pile:
                return index
            if not isinstance(move, (Play, TurnUp)):
                return None
        return None

    def _found(self, index: int) -> tuple[float, SpitMove]:
        """The move found (with its date) whose history entry is `_history[index]`. A re-read clears the
        history, not the moves remembered (`_made`), so the two lists are aligned at their ends."""
        return self._made[index + len(self._made) - len(self._history)]

    def _unmake(self, index: int, later: list[tuple[float, SpitState]]) -> None:
        """The move found at history index `index` forgotten, the history entries after it replaced by
        `later` (`_made_again_without`)."""
        del self._made[index + len(self._made) - len(self._history)], self._history[index]
        self._history[index:] = later

    def _withdraw(self, move: Play, pile: str, when: When, reason: str) -> None:
        """The play `move` onto `pile`, called at `when` and now forgotten (`_unmake`), is taken back in the
        log: a `withdraw` event, dated as the play was, saying why (`reason`, words a player understands)."""
        self._emit("withdraw", when, call="play", player=move.player, card=move.card.code, to=pile,
                   reason=reason, **{"from": move.source})

    def _made_again_without(self, index: int) -> tuple[SpitState, list[tuple[float, SpitState]]] | None:
        """The engine's position with the move found at history index `index` left out and those found
        after it made again, and their history entries (date, position before) rebuilt; None if one of
        them cannot be made without it."""
        state = self._history[index][1]
        later = []
        for k in range(index + 1, len(self._history)):
            later.append((self._history[k][0], state))
            try:
                state = state.apply(self._found(k)[1])
            except IllegalMove:
                return None
        return state, later

    def _laid_hidden(self, pile: str, card: Card, player: str, when: float) -> list[Touch]:
        """`player`'s stock top `card`, seen lifted from its place by `when` (in their hand, not yet
        judged anywhere), shown on `pile` under the card that touched it at `when`, while every stock
        place shows what the engine has (the position under it is known): their hand laid it there
        unseen (under the other player's arm over the pile) before that card, dated halfway from the
        lift (or the race window before `when`, if later) to `when`: a guess, so a race it wins has no margin
        (`_played_second` keeps it in `_unseen_laid` once the card is played)."""
        lift = self._lifted.get(card.code)
        if lift is None or lift.player != player or lift.attempted or lift.t > when or self._odd_stock():
            return []
        t = (max(lift.t, when - self.config.race_window_s) + when) / 2
        return [Touch(pile, player, t, self._frame_at(when) - round((when - t) / self.frame_interval), contact=True)]

    def _bared(self, player: str, laid: When) -> tuple[str, When] | None:
        """The one place of `player`'s where the engine has a single face-down card and the table
        shows none (settled): that card was turned and taken unseen; dated by the touch that `laid` it."""
        places = [zone for zone in self.rules.stock_names[self.rules.player_index[player]]
                  if len(self.state.pile(zone)) == 1 and not self.state.face_up(zone)
                  and self.readings.get(zone) == EMPTY and self._clear(zone)]
        return (places[0], laid) if len(places) == 1 else None

    def _emptied_at(self, player: str) -> When:
        """When `player`'s stock was emptied: their first contact with a spit pile after the last of
        their places was seen empty (the hand laying the last card), else when that place was."""
        gone = max((self._seen.get(zone, self._now) for zone in self.rules.stock_names[self.rules.player_index[player]]),
                   key=lambda when: when[0])
        laid = [touch for pile in self._piles for touch in self._touches.get(pile, ())
                if touch.contact and touch.side == player and touch.t >= gone[0]]
        first = min(laid, key=lambda touch: touch.t, default=None)
        return gone if first is None else (first.t, first.frame)

    def _between_deals(self, odd: list[str]) -> None:
        """The spit piles show no card while the engine has the deal in play: it ended unseen and the
        piles were gathered. The engine waits for the next layout, each player holding what it
        counts in their stock and spit cards and half the spit piles' cards (which player took
        which pile is not known: the layout's places and the spit cards laid later tell more).
        A layout already dealt (every stock place showing a face-up card) is read at once."""
        s = self.state
        held = {p: s.held_count(p) for p in self._players}
        gathered = self.rules.total_cards - sum(held.values())
        for k, p in enumerate(sorted(self._players, key=lambda p: held[p])):
            held[p] += gathered // len(self._players) + (k < gathered % len(self._players))
        try:
            self.state = SpitState.position(self.rules, {}, phase="layout",
                                            held={p: " ".join([FACE_DOWN] * n) for p, n in held.items()})
        except ImpossiblePosition:
            return
        self.resyncs += 1
        self._history.clear()
        self._emit("resync", self._now, stocks={}, piles={}, spit_cards={}, held=held, unexplained=odd)
        self._other_slap = self._spit_shift = None  # a slap too close to call before is of no help now
        self._end_t = self._now[0]
        fresh = all(self.readings.get(zone) in CARD_CODES for zone in self._owner)
        self._changed_since_end = set(self._owner) if fresh else set()
        self._slaps = {}
        self._lifted.clear()
        self._flagged.clear()
        self._refused.clear()
        self._pending_spit.clear()
        self._spat_early.clear()
        self._unsure.clear()
        self._odd_since.clear()
        self._layout_due = self._now[0]

    def _set_position(self, stocks: dict[str, list[tuple[int, str | None]]], piles: dict[str, tuple[int, str]],
                      spit: dict[str, int], odd: list[str], *, ended_by: str | None = None, **extra: str) -> bool:
        """The engine's position set anew (camera-state constructor; `ended_by`: the player whose
        stock is empty, ending the deal), logged as a `resync` for a resume to replay; False
        (nothing changed) if it is not a position of the game."""
        r = self.rules
        try:
            state = SpitState.observed(r, stocks, spit, piles, ended_by=ended_by)  # type: ignore[arg-type]
        except ImpossiblePosition:
            return False
        if ended_by is not None:
            extra["ended_by"] = ended_by
        self.state = state
        self._unread_tops.clear()
        self.resyncs += 1
        self._resynced_at = self._now[0]
        if extra.get("reason") != RECOUNT:  # a recount corrects one stock place: the spit piles stand as they were
            self._history.clear()  # the positions before it are of another reading of the table
        self._emit("resync", self._now,
                   stocks={zone: [count, top] for i, player in enumerate(self._players)
                           for zone, (count, top) in zip(r.stock_names[i], stocks[player])},
                   piles={pile: [count, top] for pile, (count, top) in piles.items()},
                   spit_cards=spit, counts=state.counts(), unexplained=odd, **extra)
        self._counts_known = False
        return True

    def _touched_face_down_after(self, zone: str, player: str, t: float) -> bool:
        """`zone` was read face down after `t` (if only for a frame, its reading unchanged under an arm
        that came and went) and `player`'s hand touched it after that read."""
        read = self._face_down_read.get(zone, -math.inf)
        return read > t and any(touch.contact and touch.side == player and touch.t > read
                                for touch in self._touches.get(zone, ()))

    def _recounted(self, zone: str, seen: str) -> bool:
        """On counts guessed by a re-read, a stock place showing nothing under its top (lifted, or
        played from it and not seen face down since the move before put that card face up there, nor
        read face down, if only for a frame, after the card taken from it landed and then touched by its
        player's hand: a card turned and taken there unseen)
        where the engine has face-down cards, or a face-down card where the engine has none after a
        card was played from it, had as many cards as the table shows: the cards counted there, or
        missing, are its player's spit cards (the other's when they have none). A stock so emptied
        ends the deal, dated by the move that took its last card."""
        s = self.state
        owner = self._owner[zone]
        count = len(s.pile(zone))
        here = [(when, move) for when, move in self._made
                if zone in (getattr(move, "source", None), getattr(move, "to", None), getattr(move, "pile", None))]
        last = here[-1] if here else None
        took = last is not None and getattr(last[1], "source", None) == zone
        shown = here[-2][0] if len(here) > 1 else -math.inf  # since the card taken was put face up there
        if seen == EMPTY and s.top(zone) is not None and count > 1 and s.face_up(zone) == 1:
            count = 1  # its top is in a hand, nothing under it
        elif seen == EMPTY and s.top(zone) is None and count and took and self._face_down_seen.get(zone, -1.0) < shown \
                and not self._touched_face_down_after(zone, owner, last[0]):
            count = 0  # never seen face down since: not a card turned and taken unseen
        elif seen == FACE_DOWN and not count and took:
            count = 1
        else:
            return False
        spit = {p: s.spit_count(p) for p in self._players}
        giver = owner if spit[owner] or count < len(s.pile(zone)) else max(self._players, key=lambda p: spit[p])
        spit[giver] += len(s.pile(zone)) - count
        if spit[giver] < 0:
            return False
        stocks = {p: [(count if name == zone else len(s.pile(name)),
                       getattr(s.top(name), "code", None) if count or name != zone else None) for name in names]
                  for p, names in zip(self._players, self.rules.stock_names)}
        piles = {pile: (len(s.pile(pile)), self._expected_in(s, pile)) for pile in self._piles if s.pile(pile)}
        ender = owner if not any(n for n, _ in stocks[owner]) and not self.rules.refilled_singles else None
        if not self._set_position(stocks, piles, spit, [zone], ended_by=ender, reason=RECOUNT):
            return False
        if ender is not None and last is not None:
            self._deal_ended(self.state, (last[0], self._frame_at(last[0])))
        return True
