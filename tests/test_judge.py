"""The referee's calls on hand-made observation streams: each test is named after the call it checks."""

from __future__ import annotations

import pytest

from referee.cards import parse_card
from referee.events import Event
from referee.judge.judge import Judge
from referee.judge.speahx import SpeahxReferee
from referee.judge.spit.config import (
    ALONE,
    BENEATH,
    BENEATH_DELAY_FRAMES,
    BENEATH_FRAMES,
    LAY_TURN_S,
    OTHER_SLAP,
    RECOUNT,
    SLAP_FALLBACK,
    SPIT_LAID,
    TOO_CLOSE,
    UNDERNEATH,
    UnsupportedRules,
    layout_counts,
)
from referee.judge.spit.referee import SpitReferee
from referee.observations import HandSeen, Observation, ZoneReading
from referee.rules import get_rules
from referee.rules.spit import Play, Spit, SpitRules, SpitState, TurnUp
from referee.tracker import Touch, Tracker

FPS = 30.0
LAYOUT = {"A1": "7C", "A2": "9H", "A3": "KD", "A4": "2S", "A5": "5H",
          "B1": "QS", "B2": "4D", "B3": "8S", "B4": "JD", "B5": "AC"}


class Film:
    """Writes observations frame by frame: zones as seen, hands laying, lifting and touching."""

    def __init__(self, zones: dict[str, str]) -> None:
        self.zones = dict(zones)
        self.frames: list[Observation] = []

    @property
    def t(self) -> float:
        return round(len(self.frames) / FPS, 6)

    def frame(self, hands: tuple[HandSeen, ...] = (), unread: tuple[str, ...] = (), **override: str) -> float:
        """One frame: the zones as seen (`unread` ones left out: changed, not read yet), hands over theirs."""
        t = self.t
        seen = dict(self.zones, **override)
        for hand in hands:
            for zone in hand.over:
                seen[zone] = "occluded"
        self.frames.append(Observation(t, len(self.frames), {z: ZoneReading(v) for z, v in seen.items()
                                                             if z not in unread}, hands))
        return t

    def still(self, n: int = 6) -> None:
        for _ in range(n):
            self.frame()

    def over(self, side: str, zone: str, n: int) -> None:
        """A hand of `side` over `zone` for `n` frames, touching nothing."""
        for _ in range(n):
            self.frame((HandSeen(side, (zone,)),))

    def touch(self, side: str, zone: str, n: int = 3, then: str | None = None) -> float:
        """A hand of `side` on `zone` for `n` frames (touching it); `zone` then shows `then`."""
        first = self.t
        for _ in range(n):
            self.frame((HandSeen(side, (zone,), {zone: first}),))
        if then is not None:
            self.zones[zone] = then
        return first

    def touch_both(self, a: tuple[str, str], b: tuple[str, str], lag: int, n: int = 4) -> tuple[float, float]:
        """Hands of two sides on zones, the second arriving `lag` frames after the first."""
        start = self.t
        for i in range(n + lag):
            hands = []
            if i < n:
                hands.append(HandSeen(a[0], (a[1],), {a[1]: start}))
            if i >= lag:
                hands.append(HandSeen(b[0], (b[1],), {b[1]: round(start + lag / FPS, 6)}))
            self.frame(tuple(hands))
        return start, round(start + lag / FPS, 6)

    def play(self, side: str, source: str, under: str, pile: str) -> float:
        """Lift the top of `source` (showing `under`), lay it on `pile`; the touch time."""
        card = self.zones[source]
        self.touch(side, source, 2, then=under)
        self.still(4)
        t = self.touch(side, pile, 3, then=card)
        self.still(6)
        return t

    def judge(self, rules: str = "classic", **options: object) -> list[Event]:
        judge = Judge(rules, fps=FPS, **options)  # type: ignore[arg-type]
        return [event for obs in self.frames for event in judge.feed(obs)]


STUCK = {"A1": "2S", "A2": "3H", "A3": "9C", "A4": "10D", "A5": "QH",
         "B1": "2D", "B2": "3S", "B3": "9H", "B4": "10C", "B5": "QC"}
"""A layout where no top is next to a six."""


def _opened(spit_l: str = "8D", spit_r: str = "3C", layout: dict[str, str] = LAYOUT) -> Film:
    """A classic layout read, then the opening spit."""
    film = Film(dict(layout, L="empty", R="empty"))
    film.still(6)
    film.touch("A", "L", 3, then=spit_l)
    film.touch("B", "R", 3, then=spit_r)
    film.still(6)
    return film


def _of(events: list[Event], kind: str) -> list[Event]:
    return [e for e in events if e.type == kind]


def _a_9h_refused_after_b_won_the_race(events: list[Event], ta: float) -> None:
    """The race's second card, A's 9♥ laid at `ta` on B's 7♠, is the one illegal play, and the race is B's."""
    assert [(e["player"], e["card"], e.t, e["reason"]) for e in _of(events, "illegal_play")] == \
        [("A", "9H", ta, "9♥ is not next to 7♠")]
    assert [(e["first"], e["second"]) for e in _of(events, "race")] == [("B", "A")]


def test_layout_is_read_with_counts_from_the_deal() -> None:
    events = _opened().judge()
    layout, spit = events[0], events[1]
    assert layout.type == "layout" and layout["counts"] == {"A": 26, "B": 26} and layout.t == 0.0
    assert spit.type == "spit" and spit["cards"] == {"L": "8D", "R": "3C"}


def test_layout_counts_deal_as_far_as_the_cards_go() -> None:
    assert layout_counts((1, 2, 3, 4, 5), 26) == ([1, 2, 3, 4, 5], 11)
    assert layout_counts((1, 2, 3, 4, 5), 7) == ([1, 2, 2, 1, 1], 0)


def test_play_event_time_is_the_first_contact_frame() -> None:
    film = _opened()
    t = film.play("A", "A2", "back", "L")  # 9H onto 8D
    plays = _of(film.judge(), "play")
    assert [(e["player"], e["card"], e["from"], e["to"]) for e in plays] == [("A", "9H", "A2", "L")]
    assert plays[0].t == t and plays[0]["called_at"] >= t


def test_a_play_whose_contact_is_found_again_in_the_same_touch_is_dated_at_the_hand_s_second_rest() -> None:
    film = _opened()
    stopped = film.t
    for _ in range(2):  # A's hand, its arm over A2 (9♥ taken unseen), stops over L
        film.frame((HandSeen("A", ("A2", "L"), {"L": stopped}),))
    film.frame((HandSeen("A", ("A2", "L")),))  # moves on
    laid = film.t
    for _ in range(3):  # and comes to rest again, laying the card
        film.frame((HandSeen("A", ("A2", "L"), {"L": laid}),))
    film.zones |= {"A2": "back", "L": "9H"}
    film.still(6)
    assert [(e["card"], e.t) for e in _of(film.judge(), "play")] == [("9H", laid)]


def test_a_play_no_hand_was_seen_laying_is_dated_at_the_frame_before_its_first_read_that_left_the_pile_unread() -> None:
    film = _opened()
    film.zones["A2"] = "back"  # 9♥ taken, no hand seen
    film.still(2)
    for _ in range(3):  # L changing (the card coming), not read
        film.frame(unread=("L",))
    lay = film.t - round(1 / FPS, 6)  # it lay still there from the last of those frames
    film.zones["L"] = "9H"
    film.still(6)
    assert [(e["card"], e.t) for e in _of(film.judge(), "play")] == [("9H", pytest.approx(lay))]


def test_illegal_play_names_the_reason() -> None:
    film = _opened()
    t = film.play("A", "A1", "empty", "L")  # 7C onto 8D is legal; KD onto 8D is not
    film.play("A", "A3", "back", "L")
    film.zones["L"] = "7C"
    film.still(6)
    events = film.judge()
    illegal = _of(events, "illegal_play")
    assert [(e["player"], e["card"], e["to"]) for e in illegal] == [("A", "KD", "L")]
    assert illegal[0]["reason"] == "K♦ is not next to 7♣"
    assert _of(events, "play")[0].t == t
    assert len(_of(events, "play")) == 1  # the engine did not move on the illegal card


def test_one_frame_misread_is_not_an_event() -> None:
    film = _opened()
    film.frame(L="9C")  # a one-frame misread of a card that would be a legal play
    film.frame(A3="QH")
    film.still(6)
    events = film.judge()
    assert [e.type for e in events] == ["layout", "spit"]


def test_card_under_a_hand_is_held() -> None:
    film = _opened()
    for _ in range(20):  # a hand resting over A2 and L: their cards are not read as gone
        film.frame((HandSeen("B", ("A2", "L")),), A2="empty", L="empty")
    film.still(6)
    assert [e.type for e in film.judge()] == ["layout", "spit"]


def test_turn_up_reveals_the_card() -> None:
    film = _opened()
    film.play("A", "A2", "back", "L")
    t = film.touch("A", "A2", 3, then="6S")
    film.still(6)
    turned = _of(film.judge(), "turn_up")
    assert [(e["player"], e["pile"], e["card"], e.t) for e in turned] == [("A", "A2", "6S", t)]


def test_move_to_space_fills_an_empty_place() -> None:
    film = _opened()
    film.play("A", "A1", "empty", "L")  # A1 is now empty
    film.touch("A", "A4", 2, then="back")
    film.still(4)
    t = film.touch("A", "A1", 3, then="2S")
    film.still(6)
    moved = _of(film.judge(), "move_to_space")
    assert [(e["card"], e["from"], e["to"], e.t) for e in moved] == [("2S", "A4", "A1", t)]


def test_a_move_to_a_space_with_no_contact_seen_there_is_dated_by_its_player_s_contact_beside_it_begun_since() -> None:
    film = _opened()
    film.play("A", "A1", "empty", "L")  # A1 is now empty
    film.touch("A", "A2", 2, then="back")  # A takes A2's 9H
    film.still(4)
    film.over("A", "A1", 4)  # and lays it on A1, the hand over A1 ...
    laid = film.t
    for _ in range(3):  # ... found gripping A2 beside it
        film.frame((HandSeen("A", ("A1", "A2"), {"A2": laid}),))
    film.zones["A1"] = "9H"
    film.still(6)
    moved = _of(film.judge(), "move_to_space")
    assert [(e["card"], e["from"], e["to"], e.t) for e in moved] == [("9H", "A2", "A1", laid)]


def test_a_card_read_in_two_places_at_once_is_not_moved_back_and_forth() -> None:
    film, referee = _stuck_after_a_play()  # A1 3H and A2 9C lie alone on their places
    t = film.play("A", "A1", "empty", "A3")  # 3H moved to an empty place
    film.still(10)
    film.zones["A1"] = "3H"  # its old place misread as 3H for a while (a stale or misread zone)
    film.still(20)
    film.zones["A1"] = "empty"
    film.still(10)
    moved = _of(_run(film, referee), "move_to_space")
    assert [(e["card"], e["from"], e["to"], e.t) for e in moved] == [("3H", "A1", "A3", t)]


def test_spit_is_called_when_nobody_can_move() -> None:
    film = _opened("6C", "6D", STUCK)
    events = film.judge()
    spit = _of(events, "spit")[0]
    calls = _of(events, "spit_call")
    assert len(calls) == 1 and calls[0].t == spit.t  # the stalemate began with the spit


def test_spit_is_never_called_while_a_move_exists() -> None:
    film = _opened()  # 9H and 7C fit 8D
    film.still(30)
    assert not _of(film.judge(), "spit_call")


def test_spit_waits_for_both_cards() -> None:
    film = _opened("6C", "6D", STUCK)
    film.still(10)
    a = film.touch("A", "L", 3, then="JH")
    film.still(8)
    b = film.touch("B", "R", 3, then="10S")
    film.still(6)
    spits = _of(film.judge(), "spit")
    assert spits[-1]["cards"] == {"L": "JH", "R": "10S"}
    assert spits[-1]["contact"] == {"A": a, "B": b} and spits[-1].t == b


def test_premature_spit_names_the_move() -> None:
    film = _opened()
    t = film.touch("B", "R", 3, then="JH")  # B turns a spit card while A can play 7C or 9H on 8D
    film.still(8)
    film.touch("B", "R", 3, then="3C")  # and takes it back
    film.still(6)
    events = film.judge()
    early = _of(events, "premature_spit")
    assert len(early) == 1 and early[0]["player"] == "B" and early[0].t == t
    assert early[0]["move"] == "A plays 7♣ from A1 onto L"  # the first move the engine finds
    assert not _of(events, "spit")[1:]


def test_premature_spit_of_a_hand_seen_only_over_the_pile_is_dated_by_that_hand() -> None:
    film = _opened()
    t = film.t
    for _ in range(3):  # B turns a spit card while A can move, B's contact with R not seen
        film.frame((HandSeen("B", ("R",), {}),))
    film.zones["R"] = "JH"
    film.still(8)
    film.touch("B", "R", 3, then="3C")  # and takes it back
    film.still(6)
    early = _of(film.judge(), "premature_spit")
    assert [(e["player"], e.t) for e in early] == [("B", t)]


def test_premature_spit_is_not_called_on_a_position_just_read_again_from_the_table() -> None:
    film = _opened()
    film.zones["A1"] = "4C"  # A1 shows a card no move explains: the table is read again 2 s later
    film.still(70)
    film.touch("B", "R", 3, then="JH")  # B's spit card while A can play 4♣ or 9♥
    film.still(8)
    film.touch("B", "R", 3, then="3C")  # and takes it back
    film.still(6)
    events = film.judge()
    assert _of(events, "resync") and not _of(events, "premature_spit")


def test_a_card_laid_a_moment_ago_is_not_read_again_with_a_place_long_unexplained() -> None:
    film = _opened()
    film.play("A", "A2", "back", "L")  # 9♥ onto 8♦: A2 shows its face-down card
    over_b2 = HandSeen("B", ("B2",))
    t = film.t
    for _ in range(3):  # B lays 4♦ from B2 on 3♣, its arm over B2, which is not read again for 2.3 s
        film.frame((HandSeen("B", ("B2", "R"), {"R": t}),))
    film.zones.update(R="4D", B2="back")
    film.frame((over_b2,))
    for _ in range(24):
        film.frame((over_b2,))
    t = film.t
    for _ in range(20):  # A's hand turns A2's card over, unseen
        film.frame((over_b2, HandSeen("A", ("A2",), {"A2": t})))
    t = film.t
    for _ in range(3):  # and lays it, 10♣, on 9♥, its arm still over A2
        film.frame((over_b2, HandSeen("A", ("A2", "L"), {"L": t})))
    film.zones.update(L="10C", A2="empty")
    for _ in range(20):
        film.frame((over_b2, HandSeen("A", ("A2",))))
    for _ in range(10):  # B2 read again as the engine has it; A's arm still over A2 for 1 s
        film.frame((HandSeen("A", ("A2",)),))
    film.still(60)
    events = film.judge()
    assert [(e["player"], e["card"], e["from"], e["to"]) for e in _of(events, "play")] == \
        [("A", "9H", "A2", "L"), ("B", "4D", "B2", "R"), ("A", "10C", "A2", "L")]
    assert not _of(events, "resync")


def test_premature_spit_is_not_called_on_a_hand_seen_over_the_pile_before_it_was_read_without_the_card() -> None:
    film = _opened()
    film.play("A", "A3", "back", "R")  # A's K♦ refused on 3♣
    film.over("A", "R", 3)  # A's hand over R, no contact seen: it takes K♦ back
    film.zones["R"] = "3C"
    film.over("A", "A3", 2)
    film.zones["A3"] = "KD"
    film.still(8)  # R read again showing 3♣
    film.zones["R"] = "JH"  # then a card laid by a hand not seen (an arm the colour of the table)
    film.still(8)
    events = film.judge()
    assert [e["card"] for e in _of(events, "illegal_play")] == ["KD"]
    assert not _of(events, "premature_spit")  # when unsure, say nothing: A's hand left before R was read


def test_a_card_taken_back_off_the_other_players_card_read_there_for_a_frame_before_it_was_refused_on_it() -> None:
    film = _opened()
    b2 = HandSeen("B", ("B2",))
    tb = film.t
    for _ in range(3):  # B lays 4♦ from B2 on 3♣, its arm over B2 all along (the lift unseen)
        film.frame((HandSeen("B", ("B2", "R"), {"R": tb}),))
    film.zones["B2"] = "6H"  # B turns up the card under it, under its arm
    film.frame((b2,), R="4D")  # 4♦ read for one frame only
    for _ in range(6):
        film.frame((b2,), unread=("R",))
    for _ in range(2):  # A lifts 2♠, more than the race window after B laid 4♦
        film.frame((b2, HandSeen("A", ("A4",), {"A4": film.t})))
    film.zones["A4"] = "back"
    for _ in range(8):
        film.frame((b2,), unread=("R",))
    ta = film.t
    for _ in range(3):  # A lays it on 4♦: taken for a play on 3♣
        film.frame((b2, HandSeen("A", ("R",), {"R": ta})))
    film.zones["R"] = "2S"
    for _ in range(8):
        film.frame((b2,))
    t = film.t
    for _ in range(3):  # A takes it back, showing 4♦
        film.frame((b2, HandSeen("A", ("R",), {"R": t})))
    film.zones["R"] = "4D"
    for _ in range(4):
        film.frame((b2,))
    film.over("A", "A4", 2)
    film.zones["A4"] = "2S"
    film.still(10)
    film.zones.update(A5="back", R="5H")  # A's 5♥ laid on 4♦ by a hand not seen
    t5 = film.t
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")][1:] == [("B", "4D", tb), ("A", "5H", t5)]
    assert [(e["player"], e["card"], e.t, e["reason"]) for e in _of(events, "illegal_play")] == \
        [("A", "2S", ta, "2♠ is not next to 4♦")]  # (5♥ is not dated by the touch that took 2♠ back)


def test_premature_spit_is_not_called_while_the_move_s_place_was_under_a_hand() -> None:
    film = _opened()
    for _ in range(4):  # A's hand over A1 (the engine's first move: 7C from A1 onto L) as B spits
        film.frame((HandSeen("A", ("A1",), {}), HandSeen("B", ("R",), {"R": film.frames[-1].t + 1 / FPS})))
    film.zones["R"] = "JH"
    film.still(8)
    film.touch("B", "R", 3, then="3C")  # taken back; A never played 7C
    film.still(6)
    assert not _of(film.judge(), "premature_spit")


def test_no_illegal_play_is_called_on_a_pile_touched_unseen_since_it_was_read() -> None:
    film = _opened()
    film.touch("B", "L", 3)  # B's hand on L, nothing seen laid: a card may lie there unseen
    film.still(6)
    film.play("A", "A3", "back", "L")  # KD is not next to 8D, but what lies on L was not read
    events = film.judge()
    assert not _of(events, "illegal_play") and not _of(events, "play")


def _turned_under_the_hand(film: Film, then: str) -> float:
    """A's hand comes over A2, touches its face-down card five frames later and turns it over (not
    at rest, no contact reported), then rests on it: the contact is reported dated from the touch,
    as the vision dates a contact with a face-down card; A2 then shows `then`. The touch time."""
    film.over("A", "A2", 5)
    touched = film.t
    film.over("A", "A2", 5)
    for _ in range(3):
        film.frame((HandSeen("A", ("A2",), {"A2": touched}),))
    film.zones["A2"] = then
    return touched


def test_turn_up_is_dated_by_its_player_s_contact_with_the_place_not_by_the_hand_coming_over_it() -> None:
    film = _opened()
    film.play("A", "A2", "back", "L")  # 9H onto 8D; A2 shows a face-down card
    touched = _turned_under_the_hand(film, "4C")
    film.still(6)
    turn_ups = _of(film.judge(), "turn_up")
    assert [(e["pile"], e["card"], e.t) for e in turn_ups] == [("A2", "4C", touched)]


def test_a_card_is_not_turned_up_before_its_hand_came_back_from_playing_the_card_above_it() -> None:
    film = _opened()
    for _ in range(3):  # A's hand over A2 lifting its 9H: no contact seen
        film.frame((HandSeen("A", ("A2",), {}),))
    film.zones["A2"] = "back"
    laid = film.t
    for _ in range(3):  # laying it on L, the arm still over A2
        film.frame((HandSeen("A", ("A2", "L"), {"L": laid}),))
    film.zones["L"] = "9H"
    for _ in range(5):  # back over A2, turning its card
        film.frame((HandSeen("A", ("A2",), {}),))
    film.zones["A2"] = "4C"
    film.still(8)
    events = film.judge()
    assert [(e.type, e["card"], e.t) for e in events if e.type in ("play", "turn_up")] == [
        ("play", "9H", laid), ("turn_up", "4C", round(laid + LAY_TURN_S, 6))]


def test_turn_up_of_a_card_turned_and_played_unseen_is_dated_by_its_player_s_contact_with_the_place() -> None:
    film = _opened()
    film.play("A", "A2", "back", "L")  # 9H onto 8D; A2 shows its last card, face down
    touched = _turned_under_the_hand(film, "empty")  # and takes it, never read face up: 10♣
    film.still(3)
    t = film.touch("A", "L", 3, then="10C")  # onto the 9♥
    film.still(6)
    events = film.judge()
    assert [(e["pile"], e["card"], e.t) for e in _of(events, "turn_up")] == [("A2", "10C", touched)]
    assert [(e["card"], e.t) for e in _of(events, "play")][-1] == ("10C", t)


def test_race_margin_is_the_touch_time_difference() -> None:
    film = _opened()
    film.touch("A", "A2", 2, then="back")  # 9H
    film.touch("B", "B3", 2, then="back")  # 8S
    film.still(4)
    ta, tb = film.touch_both(("A", "L"), ("B", "L"), lag=2)  # 9H onto 8D, then 8S onto 9H
    film.zones["L"] = "8S"
    film.still(8)
    events = film.judge()
    races = _of(events, "race")
    assert len(races) == 1
    race = races[0]
    assert (race["pile"], race["first"], race["second"]) == ("L", "A", "B")
    assert race["margin_ms"] == pytest.approx((tb - ta) * 1000, abs=0.01)
    assert [(e["card"], e.t) for e in _of(events, "play")] == [("9H", ta), ("8S", tb)]


def test_race_loser_taken_back_unseen_is_judged_against_the_new_top() -> None:
    film = _opened()
    film.touch("A", "A2", 2, then="back")  # 9H
    film.touch("B", "B5", 2, then="back")  # AC
    film.still(4)
    ta, tb = film.touch_both(("A", "L"), ("B", "L"), lag=3, n=6)
    film.zones["L"] = "9H"
    film.still(3)
    film.touch("B", "B5", 3, then="AC")  # B's ace comes back without ever being seen on L
    film.still(12)
    events = film.judge()
    illegal = _of(events, "illegal_play")
    assert [(e["player"], e["card"], e.t, e["reason"]) for e in illegal] == [("B", "AC", tb, "A♣ is not next to 9♥")]
    assert _of(events, "race")[0]["second"] == "B"


def test_a_refused_card_lying_on_a_pile_is_flagged_once_and_the_pile_keeps_its_top() -> None:
    film = _opened()
    film.touch("A", "A3", 2, then="back")  # A lifts K♦
    film.still(4)
    t = film.touch("A", "L", 3, then="KD")  # and lets it go on 8♦: it lies there, uncovered
    film.still(36)
    film.touch("A", "L", 3, then="8D")  # A comes back for it
    film.still(4)
    film.touch("A", "A3", 2, then="KD")  # and puts it back in its place
    film.still(6)
    played = film.play("A", "A2", "back", "L")  # 9♥ fits the 8♦ still on top, not the K♦
    events = film.judge()
    illegal = _of(events, "illegal_play")
    assert [(e["player"], e["card"], e["to"], e.t, e["reason"]) for e in illegal] == \
        [("A", "KD", "L", t, "K♦ is not next to 8♦")]
    assert [(e["card"], e.t) for e in _of(events, "play")] == [("9H", played)]
    assert not _of(events, "resync") and not _of(events, "premature_spit")


def test_a_refused_card_taken_back_from_under_a_card_laid_on_it_makes_no_call() -> None:
    film = _opened()  # R shows 3♣
    film.touch("A", "A3", 2, then="back")  # A lifts K♦
    film.touch("B", "B2", 2, then="back")  # B lifts 4♦
    film.still(4)
    film.touch_both(("A", "R"), ("B", "R"), lag=6, n=4)  # K♦ onto 3♣ (refused), 4♦ lands on it
    film.zones["R"] = "4D"
    film.still(20)
    film.touch("A", "R", 3)  # A takes K♦ from under the 4♦
    film.touch("A", "A3", 2, then="KD")
    film.still(6)
    bad = film.play("B", "B1", "empty", "R")  # Q♠ onto 4♦: refused on the 4♦ read there before A's hand came for K♦
    events = film.judge()
    illegal = _of(events, "illegal_play")
    assert [(e["card"], e.t, e["reason"]) for e in illegal] == \
        [("KD", illegal[0].t, "K♦ is not next to 3♣"), ("QS", bad, "Q♠ is not next to 4♦")]
    assert [e["card"] for e in _of(events, "play")] == ["4D"]
    assert not _of(events, "resync")


def test_a_card_seen_on_a_pile_waits_for_the_card_another_hand_laid_there_just_before() -> None:
    film = _opened(layout=dict(LAYOUT, B1="7S"))  # L shows 8♦: B's 7♠ fits it, not A's 9♥
    film.touch("B", "B1", 2, then="empty")  # B lifts 7♠
    film.still(4)
    for _ in range(3):  # A's hand picks 9♥ from A2, unseen under it
        film.frame((HandSeen("A", ("A2",), {}),))
    ta, tb = film.touch_both(("A", "L"), ("B", "L"), lag=3, n=4)  # 9♥ onto 8♦, 7♠ on top of it
    film.zones["L"] = "7S"
    for _ in range(6):  # A2 is still covered while the 7♠ is read on L
        film.frame(A2="occluded")
    film.zones["A2"] = "back"
    film.still(20)
    film.touch("B", "L", 3, then="9H")  # B takes the 7♠ back
    film.touch("B", "B1", 2, then="7S")
    film.still(6)
    events = film.judge()
    assert [(e["card"], e.t) for e in _of(events, "play")] == [("9H", ta)]
    assert [(e["player"], e["card"], e.t, e["reason"]) for e in _of(events, "illegal_play")] == \
        [("B", "7S", tb, "7♠ is not next to 9♥")]
    assert [(e["first"], e["second"]) for e in _of(events, "race")] == [("A", "B")]


def test_a_card_found_under_one_taken_back_is_judged_at_once() -> None:
    film = _opened(layout=dict(LAYOUT, B1="7S"))  # L shows 8♦
    for _ in range(3):  # both hands pick their card, unseen under them
        film.frame((HandSeen("A", ("A2",), {}), HandSeen("B", ("B1",), {})))
    t = film.t
    for _ in range(4):  # 9♥ and 7♠ touch L in one frame: 7♠ ends on top
        film.frame((HandSeen("A", ("L",), {"L": t}), HandSeen("B", ("L",), {"L": t})), A2="occluded", B1="occluded")
    film.zones.update(L="7S", A2="occluded", B1="occluded")  # their places stay hidden by their arms
    film.still(20)
    film.touch("B", "L", 3, then="9H")  # B takes 7♠ back: 9♥ under it
    shown = film.t
    film.still(10)
    plays = _of(film.judge(), "play")
    assert [(e["card"], e.t) for e in plays] == [("9H", t)]
    assert plays[0]["called_at"] < shown + 0.5  # not kept waiting for B's card, seen on top and gone


def test_a_refused_card_back_in_a_place_never_seen_without_it_is_not_played_by_a_later_touch() -> None:
    film = _opened(spit_r="QC")  # K♦ does not fit 8♦ on L, but fits Q♣ on R
    for _ in range(3):  # A's hand picks K♦ from A3, which stays covered
        film.frame((HandSeen("A", ("A3",), {}),))
    t = film.touch("A", "L", 3, then="KD")
    film.still(30)
    film.touch("A", "L", 3, then="8D")  # A takes K♦ back
    for _ in range(3):  # to A3, still covered
        film.frame((HandSeen("A", ("A3",), {}),))
    film.still(6)
    film.touch("A", "R", 3)  # A's hand on R, laying nothing
    film.still(20)
    events = film.judge()
    assert [(e["card"], e["to"], e.t) for e in _of(events, "illegal_play")] == [("KD", "L", t)]
    assert not _of(events, "play")


@pytest.mark.parametrize("lag", [6, 18])  # B's card waiting for A's, or judged at its touch before A's place is read
def test_a_card_seen_turned_after_its_player_touched_a_pile_another_card_then_covered_makes_no_call(lag: int) -> None:
    film = _opened()
    film.play("A", "A2", "back", "L")  # 9♥ onto 8♦: A2 shows a face-down card
    film.touch("A", "A2", 3)  # A turns a card there and takes it, unseen
    film.touch("B", "B2", 2, then="back")  # B lifts 4♦
    film.touch_both(("A", "R"), ("B", "R"), lag=lag, n=4)  # A's card onto 3♣, then B's 4♦ onto it
    film.zones["R"] = "4D"
    film.still(6)
    film.touch("A", "A2", 3, then="QH")  # A turns the next card: Q♥ cannot be told from a card taken back
    film.still(30)
    events = film.judge()
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A2", "QH")]
    assert [e["card"] for e in _of(events, "play")] == ["9H", "4D"]
    assert not _of(events, "illegal_play")


def _seven_laid_on_an_unseen_nine_and_taken_back() -> tuple[Film, float, float]:
    """A's 9♥ laid on L under A's hand (no contact seen), B's 7♠ on it, then taken back by B: the
    film and when each was laid. L showed 8♦: B's 7♠ fits it, not A's 9♥."""
    film = _opened(layout=dict(LAYOUT, B1="7S"))
    film.touch("A", "A2", 2, then="back")  # A lifts 9♥
    film.touch("B", "B1", 2, then="empty")  # B lifts 7♠
    film.still(4)
    ta = film.t
    for _ in range(3):  # A's hand over L, its contact not seen: 9♥ goes under
        film.frame((HandSeen("A", ("L",), {}),))
    tb = film.touch("B", "L", 3, then="7S")  # 7♠ on top
    film.still(20)
    film.touch("B", "L", 3, then="9H")  # B takes the 7♠ back
    return film, ta, tb


def test_a_card_laid_while_another_hand_holding_a_card_was_over_the_pile_waits_for_that_card() -> None:
    film, ta, tb = _seven_laid_on_an_unseen_nine_and_taken_back()
    film.touch("B", "B1", 2, then="7S")
    film.still(6)
    events = film.judge()
    assert [(e["card"], e.t) for e in _of(events, "play")] == [("9H", ta)]
    assert [(e["player"], e["card"], e.t, e["reason"]) for e in _of(events, "illegal_play")] == \
        [("B", "7S", tb, "7♠ is not next to 9♥")]


def test_cards_touching_a_pile_within_a_frame_of_each_other_are_judged_once_the_pile_is_read_with_no_hand_over_it() -> None:
    film = _opened(layout=dict(LAYOUT, B1="7S"))  # L shows 8♦: 9♥ and 7♠ each fit it, not each other
    film.touch("A", "A2", 2, then="back")  # A lifts 9♥
    film.touch("B", "B1", 2, then="empty")  # B lifts 7♠
    film.still(4)
    film.frame((HandSeen("A", ("L",), {}),))  # A's hand comes over L
    tb = film.t
    film.frame((HandSeen("A", ("L",), {}), HandSeen("B", ("L",), {"L": tb})))  # 7♠ seen touching first
    ta = film.t
    for _ in range(3):  # 9♥ seen a frame later: the camera cannot tell which came first
        film.frame((HandSeen("A", ("L",), {"L": ta}), HandSeen("B", ("L",), {"L": tb})))
    film.zones["L"] = "7S"  # read on top with no hand over the pile: it came second
    film.still(20)
    taken = film.touch("B", "L", 3, then="9H")  # B takes the 7♠ back, as it was refused
    film.touch("B", "B1", 2, then="7S")
    film.still(6)
    events = film.judge()
    plays = _of(events, "play")
    assert [(e["card"], e.t) for e in plays] == [("9H", ta)]
    assert plays[0]["called_at"] < taken  # not held up for the take-back, which calls nothing more
    assert [(e["player"], e["card"], e.t, e["reason"]) for e in _of(events, "illegal_play")] == \
        [("B", "7S", tb, "7♠ is not next to 9♥")]
    assert [(e["first"], e["second"]) for e in _of(events, "race")] == [("A", "B")]


def test_race_loser_whose_rival_lifted_its_card_with_a_hand_already_on_the_pile_is_refused_against_the_new_top() -> None:
    film = _opened(layout=dict(LAYOUT, B1="7S"))  # L shows 8♦: 9♥ and 7♠ each fit it, not each other
    for _ in range(3):  # A's hand comes over A2 and stays: its 9♥ is never seen lifted
        film.frame((HandSeen("A", ("A2",), {}),))
    for _ in range(3):  # B's hand comes over B1
        film.frame((HandSeen("A", ("A2",), {}), HandSeen("B", ("B1",), {})))
    tb = film.t  # B's hand over B1 and L: its contact with L is seen a frame before the one with B1
    film.frame((HandSeen("A", ("A2",), {}), HandSeen("B", ("B1", "L"), {"L": tb})))
    for _ in range(3):
        film.frame((HandSeen("A", ("A2",), {}), HandSeen("B", ("B1", "L"), {"L": tb, "B1": round(tb + 1 / FPS, 6)})))
    film.zones["B1"] = "empty"
    for _ in range(3):
        film.frame((HandSeen("A", ("A2",), {}),))
    ta = film.t  # 9♥ lands on the 7♠
    for _ in range(3):
        film.frame((HandSeen("A", ("A2", "L"), {"L": ta}),))
    film.zones["L"] = "9H"
    for _ in range(12):
        film.frame((HandSeen("A", ("A2",), {}),))
    for _ in range(3):  # A takes the 9♥ back, its hand not seen touching L
        film.frame((HandSeen("A", ("A2", "L"), {}),))
    film.zones["L"] = "7S"
    film.still(8)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("B", "7S", tb)]
    _a_9h_refused_after_b_won_the_race(events, ta)


def test_race_loser_never_seen_lifted_and_taken_back_off_the_pile_is_refused_against_the_new_top() -> None:
    film = _opened(layout=dict(LAYOUT, B1="7S"))  # L shows 8♦: 9♥ and 7♠ each fit it, not each other
    a, b = HandSeen("A", ("A2",), {}), HandSeen("B", ("B1",), {})  # hands over their places: no card seen lifted
    for _ in range(3):
        film.frame((a, b))
    tb = film.t  # B's 7♠ onto the 8♦
    for _ in range(3):
        film.frame((a, HandSeen("B", ("B1", "L"), {"L": tb})))
    for _ in range(2):
        film.frame((a, b))
    ta = film.t  # A's 9♥ onto the 7♠
    for _ in range(3):
        film.frame((HandSeen("A", ("A2", "L"), {"L": ta}), b))
    film.zones["L"] = "9H"
    for _ in range(12):
        film.frame((a, b))
    for _ in range(3):  # A takes the 9♥ back, its hand not seen touching L
        film.frame((HandSeen("A", ("A2", "L"), {}), b))
    film.zones["L"] = "7S"
    for _ in range(8):
        film.frame((a, b))
    film.zones["B1"] = "empty"
    film.still(8)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("B", "7S", tb)]
    _a_9h_refused_after_b_won_the_race(events, ta)


def _played_over_a_card_turned_unseen() -> tuple[Film, float, float, float]:
    """B turns B2's card, 7♥, and lays it on 8♦ unseen under A's 9♥, laid a frame later and judged
    played; A then takes the 9♥ back. The film and the times B's hand came over B2, B laid, A laid."""
    film = _opened()  # L shows 8♦
    film.play("B", "B2", "back", "R")  # 4♦ onto 3♣: B2 shows its face-down card
    film.touch("A", "A2", 2, then="back")  # A lifts 9♥
    film.still(2)
    over_b2 = HandSeen("B", ("B2",))
    turned = film.t
    for _ in range(12):  # B's hand turns B2's card over, unseen
        film.frame((over_b2,))
    tb = film.t  # and lays it, 7♥, on the 8♦, its arm over B2
    film.frame((HandSeen("B", ("B2", "L"), {"L": tb}),))
    ta = film.t  # A's 9♥ lands on it a frame later
    for _ in range(3):
        film.frame((HandSeen("B", ("B2", "L"), {"L": tb}), HandSeen("A", ("L",), {"L": ta})))
    film.zones.update(L="9H", B2="empty")
    film.still(45)  # 9♥ is all the camera saw laid: played on 8♦
    film.over("A", "L", 3)  # A takes the 9♥ back, showing the 7♥ under it
    film.zones["L"] = "7H"
    film.still(8)
    film.zones["A2"] = "9H"
    film.still(8)
    return film, turned, tb, ta


def test_a_card_judged_played_then_taken_back_off_a_card_turned_unseen_under_it_is_refused_on_that_card() -> None:
    film, turned, tb, ta = _played_over_a_card_turned_unseen()
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "turn_up")] == [("B", "7H", turned)]
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-1] == ("B", "7H", "B2", tb)
    assert [(e["player"], e["card"], e.t, e["reason"]) for e in _of(events, "illegal_play")] == \
        [("A", "9H", ta, "9♥ is not next to 7♥")]
    assert [(e["first"], e["second"]) for e in _of(events, "race")] == [("B", "A")]


def test_a_play_the_referee_found_laid_over_an_earlier_card_is_withdrawn_before_that_card_is_refused() -> None:
    film, turned, tb, ta = _played_over_a_card_turned_unseen()
    events = film.judge()
    withdrawn = _of(events, "withdraw")
    assert [(e["call"], e["player"], e["card"], e["from"], e["to"], e.t, e["reason"]) for e in withdrawn] == \
        [("play", "A", "9H", "A2", "L", ta, "7♥ was laid on L before it")]
    assert ("A", "9H", ta) in [(e["player"], e["card"], e.t) for e in _of(events, "play")]  # called first
    kinds = [e.type for e in events]
    assert kinds.index("withdraw") < kinds.index("illegal_play")  # taken back, then refused on the 7♥


def test_a_card_judged_played_then_taken_back_off_a_rival_s_card_laid_unseen_under_it_is_refused_on_that_card() -> None:
    film = _opened(layout=dict(LAYOUT, B1="7S"))  # L shows 8♦: 9♥ and 7♠ each fit it, not each other
    b = HandSeen("B", ("B1",))  # B's arm over B1 all along: 7♠ never seen lifted
    for _ in range(3):
        film.frame((b,))
    tb = film.t  # B's 7♠ onto the 8♦
    film.frame((HandSeen("B", ("B1", "L"), {"L": tb}),))
    ta = film.t  # A's 9♥ onto the 7♠ a frame later
    for _ in range(3):
        film.frame((HandSeen("A", ("A2", "L"), {"L": ta}), HandSeen("B", ("B1", "L"), {"L": tb})))
    film.zones.update(L="9H", A2="back", B1="empty")
    for _ in range(45):  # 9♥ is all the camera saw laid: played on 8♦
        film.frame((b,))
    for _ in range(3):  # A takes the 9♥ back, showing the 7♠ under it
        film.frame((b, HandSeen("A", ("L",))))
    film.zones["L"] = "7S"
    for _ in range(8):
        film.frame((b,))
    film.still(8)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")][-1] == ("B", "7S", tb)
    _a_9h_refused_after_b_won_the_race(events, ta)


def test_illegal_play_is_called_while_the_place_a_card_was_just_played_from_is_still_under_a_hand() -> None:
    film = _opened()  # L shows 8♦
    film.frame((HandSeen("A", ("A2",), {}),))
    ta = film.t  # A's hand takes 9♥ from A2 onto L, and stays over A2: A2 is not read again
    for _ in range(3):
        film.frame((HandSeen("A", ("A2", "L"), {"L": ta}),))
    film.zones["L"] = "9H"
    for _ in range(6):
        film.frame((HandSeen("A", ("A2",), {}),))
    for _ in range(2):  # B lifts Q♠
        film.frame((HandSeen("A", ("A2",), {}), HandSeen("B", ("B1",), {"B1": film.t})))
    film.zones["B1"] = "empty"
    for _ in range(4):
        film.frame((HandSeen("A", ("A2",), {}),))
    tb = film.t  # and lays it on the 9♥
    for _ in range(3):
        film.frame((HandSeen("A", ("A2",), {}), HandSeen("B", ("L",), {"L": tb})))
    film.zones["L"] = "QS"
    for _ in range(8):
        film.frame((HandSeen("A", ("A2",), {}),))
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("A", "9H", ta)]
    assert [(e["player"], e["card"], e.t, e["reason"]) for e in _of(events, "illegal_play")] == \
        [("B", "QS", tb, "Q♠ is not next to 9♥")]


def test_illegal_play_is_called_while_the_place_a_card_was_just_played_from_has_changed_and_is_not_read_yet() -> None:
    film = _opened()  # L shows 8♦
    ta = film.t  # A's hand takes 9♥ from A2 onto L; A2 then changed, not read yet
    for _ in range(3):
        film.frame((HandSeen("A", ("A2", "L"), {"L": ta}),))
    film.zones["L"] = "9H"
    for _ in range(6):
        film.frame(unread=("A2",))
    for _ in range(2):  # B lifts Q♠
        film.frame((HandSeen("B", ("B1",), {"B1": film.t}),), unread=("A2",))
    film.zones["B1"] = "empty"
    for _ in range(4):
        film.frame(unread=("A2",))
    tb = film.t  # and lays it on the 9♥
    for _ in range(3):
        film.frame((HandSeen("B", ("L",), {"L": tb}),), unread=("A2",))
    film.zones["L"] = "QS"
    for _ in range(8):
        film.frame(unread=("A2",))
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("A", "9H", ta)]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("B", "QS", tb)]



def test_an_unknown_card_laid_where_it_cannot_go_after_its_player_s_touch_laid_another_is_not_their_card_turned_unseen() -> None:
    film = _opened()  # R shows 3♣
    film.play("B", "B2", "back", "R")  # 4♦ onto 3♣
    film.touch("B", "B2", 3)  # B's hand on the face-down top of B2, which is not read again
    for _ in range(4):  # J♠ shows on R, no hand seen laying it
        film.frame(unread=("B2",))
    film.zones["R"] = "JS"
    for _ in range(10):
        film.frame(unread=("B2",))
    events = film.judge()
    assert not _of(events, "illegal_play") and not _of(events, "turn_up")


def test_a_card_taken_while_an_arm_hid_its_place_is_judged_at_its_player_s_touch_on_a_pile_since_the_place_was_read() -> None:
    film = _opened()  # L shows 8♦
    for _ in range(6):  # A's arm over A2 (no contact seen)
        film.frame((HandSeen("A", ("A2",), {}),))
    ta = film.t  # A's 9♥ from A2 touches L
    for _ in range(3):
        film.frame((HandSeen("A", ("A2", "L"), {"L": ta}),))
    film.zones["A2"] = "back"
    for _ in range(6):
        film.frame((HandSeen("A", ("A2",), {}),))
    for _ in range(4):  # A2 changed, not read yet, then hidden again
        film.frame(unread=("A2",))
    for _ in range(4):
        film.frame((HandSeen("A", ("A2",), {}), HandSeen("B", ("B3",), {"B3": film.t})))
    film.zones["B3"] = "back"  # B lifts 8♠
    film.still(4)
    tb = film.touch("B", "L", 3, then="8S")  # and lays it on the 9♥ (never seen)
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("A", "9H", ta), ("B", "8S", tb)]
    assert not _of(events, "illegal_play")


def test_a_refused_card_read_back_in_a_place_never_seen_without_it_leaves_its_player_s_next_card_judged_at_its_touch() -> None:
    film = _opened()  # L shows 8♦
    for _ in range(3):  # A's hand over A3 takes K♦ (A3 never seen without it)
        film.frame((HandSeen("A", ("A3",), {}),))
    bad = film.t
    for _ in range(3):  # and lays it on L
        film.frame((HandSeen("A", ("A3", "L"), {"L": bad}),))
    film.zones["L"] = "KD"
    film.still(8)
    back = film.t
    for _ in range(3):  # A takes it back to A3
        film.frame((HandSeen("A", ("A3", "L"), {"L": back}),))
    film.zones["L"] = "8D"
    for _ in range(3):
        film.frame((HandSeen("A", ("A3",), {}),))
    film.still(4)
    t = film.play("A", "A2", "back", "L")  # 9♥ onto 8♦
    events = film.judge()
    assert [(e["card"], e.t) for e in _of(events, "illegal_play")] == [("KD", bad)]
    assert [(e["card"], e.t, e["called_at"]) for e in _of(events, "play")] == [("9H", t, t)]


def test_illegal_play_is_called_on_a_card_seen_lying_on_the_top_last_read_though_its_hand_was_not_seen() -> None:
    film = _opened()  # L shows 8♦
    film.still(45)
    film.touch("A", "A3", 2, then="back")  # A lifts K♦
    film.still(6)
    film.zones["L"] = "KD"  # and lays it on L, the hand finder missing the hand there
    t = film.t
    film.still(20)
    film.touch("A", "L", 3, then="8D")  # A takes it back
    film.touch("A", "A3", 2, then="KD")
    film.still(6)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("A", "KD", t)]


def test_no_illegal_play_is_called_on_a_card_found_on_a_pile_once_another_hand_was_over_it() -> None:
    film = _opened()  # L shows 8♦
    film.still(45)
    film.touch("A", "A3", 2, then="back")  # A lifts K♦
    film.still(6)
    for _ in range(3):  # B's hand over L, its contact not seen
        film.frame((HandSeen("B", ("L",), {}),))
    film.zones["L"] = "KD"  # K♦ found there, its hand not seen
    film.still(20)
    film.touch("A", "L", 3, then="8D")
    film.touch("A", "A3", 2, then="KD")
    film.still(6)
    assert not _of(film.judge(), "illegal_play")


def test_a_card_read_back_in_its_place_for_a_frame_before_its_hand_touched_a_pile_is_not_in_a_hand() -> None:
    film = _opened()  # L shows 8♦
    film.touch("A", "A4", 2, then="back")  # A's hand takes 2♠ (A4 shows a face-down card)
    film.still(4)
    film.zones["A4"] = "2S"  # and puts it back, read in one frame only before its arm hides A4 again
    film.frame()
    for _ in range(3):
        film.frame((HandSeen("A", ("A4",), {}),))
    film.zones["A4"] = "back"
    for _ in range(3):  # A4 not read again: the face-down card it settled on stands
        film.frame(unread=("A4",))
    film.touch("A", "A2", 2, then="back")  # A lifts 9♥
    film.still(2)
    t = film.touch("A", "L", 3, then="9H")  # and lays it on 8♦: the one card in A's hand
    film.still(8)
    plays = _of(film.judge(), "play")
    assert [(e["card"], e.t, e["called_at"]) for e in plays] == [("9H", t, t)]


def test_a_card_refused_in_a_tie_put_back_too_briefly_to_be_read_and_laid_again_is_judged_at_its_touch() -> None:
    film = _opened(spit_r="QC", layout=dict(LAYOUT, B1="KS"))  # L shows 8♦: 9♥ fits it, K♠ does not; R Q♣ fits K♠
    film.touch("A", "A2", 2, then="back")  # A lifts 9♥
    film.touch("B", "B1", 2, then="empty")  # B lifts K♠
    film.still(4)
    film.frame((HandSeen("B", ("L",), {}),))
    tb = film.t
    film.frame((HandSeen("B", ("L",), {"L": tb}), HandSeen("A", ("L",), {})))
    ta = film.t
    for _ in range(3):  # within a frame of each other: the order shows later
        film.frame((HandSeen("B", ("L",), {"L": tb}), HandSeen("A", ("L",), {"L": ta})))
    film.zones["L"] = "9H"  # A's 9♥ on top
    film.still(6)
    film.touch("B", "L", 3)  # B takes K♠ back from under it
    film.touch("B", "B1", 3, then="KS")  # puts it back, read in one frame only
    film.frame()
    film.zones["B1"] = "empty"
    film.touch("B", "B1", 3)  # and picks it up again
    film.still(30)  # meanwhile the tie is judged: K♠ came first, refused
    t = film.touch("B", "R", 3, then="KS")  # K♠ onto Q♣
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e["to"]) for e in _of(events, "illegal_play")] == [("B", "KS", "L")]
    plays = _of(events, "play")
    assert [(e["card"], e["to"], e.t) for e in plays] == [("9H", "L", ta), ("KS", "R", t)]
    assert plays[-1]["called_at"] == t  # judged at its touch, before it can be seen

def test_a_card_laid_while_another_hand_that_turned_a_card_unseen_was_over_the_pile_waits_for_that_card() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.play("B", "B2", "back", "R")  # 4♦ onto 3♣: B2 shows its face-down card
    film.touch("B", "B2", 4, then="empty")  # B turns it and takes it, unseen: 7♠
    film.touch("A", "A2", 2, then="back")  # A lifts 9♥
    tb = film.t
    for _ in range(3):  # B's hand over L, its contact not seen: 7♠ onto 8♦
        film.frame((HandSeen("B", ("L",), {}),))
    ta = film.touch("A", "L", 3, then="9H")  # 9♥ lands on the 7♠
    film.still(10)
    film.touch("A", "L", 3, then="7S")  # A takes the 9♥ back: it was refused
    film.touch("A", "A2", 2, then="9H")
    film.still(6)
    events = film.judge()
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("B2", "7S")]
    assert [(e["card"], e.t) for e in _of(events, "play")] == [("4D", events[2].t), ("7S", tb)]
    _a_9h_refused_after_b_won_the_race(events, ta)


def test_a_hand_passing_over_a_pile_on_its_way_to_the_other_makes_no_card_wait() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.touch("A", "A3", 2, then="back")  # A lifts K♦
    film.touch("B", "B2", 2, then="back")  # B lifts 4♦
    film.still(4)
    film.frame((HandSeen("A", ("R",), {}),))  # A's hand passes over R
    tb = film.t
    film.frame((HandSeen("B", ("R",), {"R": tb}),))  # B lays 4♦ on R
    ta = film.t
    for i in range(24):  # while A lays K♦ on L and keeps its hand there
        film.frame((HandSeen("A", ("L",), {"L": ta}),) + ((HandSeen("B", ("R",), {"R": tb}),) if i < 3 else ()),
                   **({"R": "4D"} if i >= 3 else {}))
    film.zones.update(L="KD", R="4D")
    film.still(10)
    events = film.judge()
    plays = _of(events, "play")
    assert [(e["card"], e.t) for e in plays] == [("4D", tb)]
    assert plays[0]["called_at"] < tb + 0.5  # judged once seen, not after waiting for A's card
    assert [e["card"] for e in _of(events, "illegal_play")] == ["KD"]


def test_an_unknown_card_laid_by_a_player_with_one_face_down_top_is_that_card_turned_and_played() -> None:
    film = _opened()  # R shows 3♣
    first = film.play("A", "A2", "back", "L")  # 9♥ onto 8♦: A2, A's only face-down top
    t = film.touch("A", "R", 3, then="4H")  # 4♥ laid on R, A's hand never seen over A2
    film.still(10)
    events = film.judge()
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A2", "4H")]
    assert [(e["card"], e["from"], e.t) for e in _of(events, "play")] == [("9H", "A2", first), ("4H", "A2", t)]
    assert not _of(events, "premature_spit")


def test_a_card_turned_and_laid_between_two_touches_on_its_place_read_after_the_next_card_is_no_premature_spit() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A2", "back", "L")  # 9♥ onto 8♦: A2 shows a face-down card
    film.touch("B", "B2", 2, then="back")  # B lifts 4♦
    film.touch("A", "A2", 3)  # A turns 4♥ there and takes it, unseen
    film.touch_both(("A", "R"), ("B", "R"), lag=15, n=4)  # A's 4♥ onto 3♣, B's 4♦ on top of it
    film.zones["R"] = "4D"
    film.still(6)
    film.touch("A", "A2", 3, then="QH")  # A turns the next card, read first
    film.still(8)
    for _ in range(3):  # B takes 4♦ back, its contact not seen: 4♥ shows
        film.frame((HandSeen("B", ("R",), {}),))
    film.zones["R"] = "4H"
    film.still(12)
    film.touch("B", "B2", 2, then="4D")
    film.still(30)
    assert not _of(film.judge(), "premature_spit")


def test_a_card_turned_by_a_hand_seen_only_over_its_place_and_played_is_that_card_turned_and_played() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A2", "back", "L")  # 9♥ onto 8♦
    film.play("A", "A4", "back", "R")  # 2♠ onto 3♣: A2 and A4 show face-down cards
    for _ in range(4):  # A's hand over A4, its contact not seen: it turns A♦ there and takes it
        film.frame((HandSeen("A", ("A4",), {}),))
    film.still(2)
    t = film.touch("A", "R", 3, then="AD")
    film.still(10)
    events = film.judge()
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A4", "AD")]
    assert [(e["card"], e["from"], e.t) for e in _of(events, "play")][-1] == ("AD", "A4", t)
    assert not _of(events, "premature_spit")


def test_a_card_put_back_is_not_judged_at_a_touch_of_its_player_s_hand_on_a_pile_from_the_moment_it_is_back() -> None:
    film = _opened()  # L shows 8♦
    film.touch("B", "B3", 2, then="back")  # B lifts 8♠
    film.still(6)
    film.zones["B3"] = "8S"  # and puts it back as its other hand touches L
    film.touch("B", "L", 3)
    film.still(10)
    assert not _of(film.judge(), "illegal_play")


def test_a_card_seen_on_top_whose_hand_was_only_seen_over_the_pile_came_after_a_card_whose_touch_was_seen() -> None:
    film = _opened()  # R shows 3♣
    film.touch("A", "A4", 2, then="back")  # A lifts 2♠
    film.touch("B", "B2", 2, then="back")  # B lifts 4♦
    film.still(4)
    for _ in range(3):  # A's hand over R, its contact not seen
        film.frame((HandSeen("A", ("R",), {}),))
    tb = film.t
    for _ in range(3):  # B's 4♦ touches R
        film.frame((HandSeen("A", ("R",), {}), HandSeen("B", ("R",), {"R": tb})))
    film.zones["R"] = "2S"  # A's 2♠ lies on top
    film.still(40)
    film.touch("A", "R", 3, then="4D")  # A takes it back
    film.touch("A", "A4", 2, then="2S")
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("B", "4D", tb)]
    assert [(e["player"], e["card"]) for e in _of(events, "illegal_play")] == [("A", "2S")]
    assert [(e["first"], e["second"]) for e in _of(events, "race")] == [("B", "A")]


def test_the_last_stock_card_is_played_at_its_player_s_touch_when_its_place_is_read_only_after_the_piles_are_gathered() -> None:
    rules = SpitRules()
    state, film = _before_the_last_stock_card(rules)
    film.over("A", "A1", 3)  # A's arm comes over A1 and stays over it: the 7♣ is never seen lifted
    film.zones["A1"] = "empty"
    t = film.t  # A lays it on the 6♦, the hand staying there: the 7♣ is never read on L
    for _ in range(36):
        film.frame((HandSeen("A", ("A1", "L"), {"L": t}),))
    for _ in range(4):  # the hand rises over the pile
        film.frame((HandSeen("A", ("A1",), {}),), L="occluded")
    slap = film.t
    for _ in range(3):  # A slaps L, B two frames later
        film.frame((HandSeen("A", ("A1", "L"), {"L": slap}),))
    for _ in range(3):
        film.frame((HandSeen("A", ("A1", "L"), {"L": slap}), HandSeen("B", ("L",), {"L": round(slap + 2 / FPS, 6)})))
    film.zones.update(L="empty", R="empty")  # the piles gathered, A's arm still over A1
    film.over("A", "A1", 40)
    film.still(10)  # A1 read empty only now
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("A", "7C", t)]
    assert [(e["player"], e["counts"], e.t) for e in _of(events, "deal_end")] == [("A", {"A": 2, "B": 3}, t)]
    assert [(e["pile"], e["winner"]) for e in _of(events, "slap")] == [("L", "A")]
    assert not _of(events, "resync")


def _before_the_last_stock_card(rules: SpitRules) -> tuple[SpitState, Film]:
    """A's last stock card 7C beside the 6D on L, the table read still."""
    state = SpitState.position(rules, {"A": ["7C"], "B": ["QS", "back |"]}, spit={"A": "2C 3C", "B": "4C"},
                               piles={"L": "6D", "R": "KH"})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "7C", "B1": "QS", "B2": "back", "L": "6D", "R": "KH"})
    film.still(4)
    return state, film


def _settling(rules: SpitRules | None = None) -> tuple[Film, SpitReferee]:
    """A deal about to end: A's last stock card 7C goes onto 6D."""
    rules = rules or SpitRules()
    state, film = _before_the_last_stock_card(rules)
    film.play("A", "A1", "empty", "L")
    film.still(10)
    return film, SpitReferee(rules, state=state)


def _only_a_turn_before_the_spit(a2: str = "back |") -> tuple[Film, SpitReferee]:
    """Spit cards not laid yet; A's only move is turning up the face-down card on A2 (K♠ and 9♣ fit
    neither 4♦ nor 6♦); `a2` is A2's pile, bottom first."""
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["KS", a2], "B": ["9C"]}, spit={"A": "back", "B": "back"},
                               piles={"L": "4D", "R": "6D"})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "KS", "A2": "back", "B1": "9C", "L": "4D", "R": "6D"})
    film.still(4)
    return film, SpitReferee(rules, state=state)


def _run(film: Film, referee: SpitReferee) -> list[Event]:
    tracker = Tracker()
    return [event for obs in film.frames for event in referee.update(tracker.update(obs))]


def _stuck_after_a_play() -> tuple[Film, SpitReferee]:
    """A position where A's 3♥ onto 4♦ is the only move: after it nobody can move."""
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["3H", "9C"], "B": ["KS"]}, spit={"A": "2C", "B": "5C"},
                               piles={"L": "4D", "R": "6D"})
    zones = {z: "empty" for z in rules.place_names} | {"A1": "3H", "A2": "9C", "B1": "KS", "L": "4D", "R": "6D"}
    film = Film(zones)
    film.still(4)
    return film, SpitReferee(rules, state=state)


def test_spit_is_called_while_a_card_that_fits_nowhere_is_still_in_a_hand() -> None:
    film, referee = _stuck_after_a_play()
    film.touch("B", "B1", 2, then="empty")  # B lifts K♠, which fits nowhere
    film.still(2)
    t = film.play("A", "A1", "empty", "L")  # 3♥ onto 4♦: nobody can move
    film.still(20)  # K♠ still in B's hand
    film.touch("B", "B1", 3, then="KS")  # and back in its place
    film.still(10)
    events = _run(film, referee)
    calls = _of(events, "spit_call")
    assert len(calls) == 1 and calls[0].t == t and calls[0]["called_at"] <= t + 0.5
    assert not _of(events, "illegal_play") and not _of(events, "premature_spit")


def test_a_spit_card_laid_before_the_last_move_is_premature_though_the_move_is_read_first() -> None:
    film, referee = _stuck_after_a_play()
    film.touch("A", "A1", 2, then="empty")  # A lifts 3♥
    film.still(2)
    tb, ta = film.touch_both(("B", "R"), ("A", "L"), lag=6, n=8)  # B's spit card, then A's 3♥ onto 4♦
    film.zones.update(R="JC", L="3H")
    film.still(8)
    film.touch("B", "R", 3, then="6D")  # B takes the spit card back
    film.still(10)
    events = _run(film, referee)
    early = _of(events, "premature_spit")
    assert [(e["player"], e["move"], e.t) for e in early] == [("B", "A plays 3♥ from A1 onto L", tb)]
    assert [(e["card"], e.t) for e in _of(events, "play")] == [("3H", ta)]
    assert not _of(events, "spit")


def test_a_spit_card_is_judged_without_a_play_made_after_it_though_a_turn_up_before_it_is_read_later() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["3H", "back |"], "B": ["KS"]}, spit={"A": "2C", "B": "5C"},
                               piles={"L": "4D", "R": "6D"})  # A's 3♥ onto 4♦ and A's turn-up on A2 are the moves
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "3H", "A2": "back", "B1": "KS", "L": "4D", "R": "6D"})
    film.still(4)
    film.touch("A", "A2", 3, then="occluded")  # A turns 7♣ there, not read yet
    film.still(2)
    tb = film.t
    b_on_r = HandSeen("B", ("R",), {"R": tb})  # B's spit card on R, B's hand on it a while
    for _ in range(4):
        film.frame((b_on_r,))
    film.zones["A1"] = "empty"  # A lifts 3♥
    for _ in range(2):
        film.frame((b_on_r, HandSeen("A", ("A1",), {"A1": film.t})))
    ta = film.t
    for _ in range(3):  # and lays it on L
        film.frame((b_on_r, HandSeen("A", ("L",), {"L": ta})))
    film.zones["L"] = "3H"
    for _ in range(8):
        film.frame((b_on_r,))
    film.zones["A2"] = "7C"  # read only now
    for _ in range(8):
        film.frame((b_on_r,))
    film.zones["R"] = "JC"
    film.still(10)
    film.touch("B", "R", 3, then="6D")  # B takes the spit card back
    film.still(10)
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["card"], e.t) for e in _of(events, "play")] == [("3H", ta)]
    early = _of(events, "premature_spit")
    assert [(e["player"], e["move"], e.t) for e in early] == [("B", "A plays 3♥ from A1 onto L", tb)]


def test_a_spit_card_laid_before_a_turn_up_its_player_s_touch_dates_later_is_premature_though_read_after_it() -> None:
    film, referee = _only_a_turn_before_the_spit()
    tb = film.t
    b_on_r = HandSeen("B", ("R",), {"R": tb})  # B's spit card on R, B's hand on it a while
    for _ in range(6):
        film.frame((b_on_r,))
    ta = film.t
    for _ in range(4):  # A turns up A2 (Q♣, which fits nowhere)
        film.frame((b_on_r, HandSeen("A", ("A2",), {"A2": ta})))
    film.zones["A2"] = "QC"
    for _ in range(8):  # read while B's hand still hides R
        film.frame((b_on_r,))
    film.zones["R"] = "8H"
    film.still(10)
    film.touch("B", "R", 3, then="6D")  # B takes the spit card back
    film.still(10)
    events = _run(film, referee)
    assert [(e["player"], e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A", "A2", "QC")]
    early = _of(events, "premature_spit")
    assert [(e["player"], e["move"], e.t) for e in early] == [("B", "A turns up the top of A2", tb)]


def test_a_spit_card_laid_as_a_card_turned_just_before_it_and_played_after_it_is_premature() -> None:
    film, referee = _only_a_turn_before_the_spit()
    ta = film.t
    for _ in range(4):  # A turns up A2's last card, 5♣ (it fits on 4♦), never read in its place
        film.frame((HandSeen("A", ("A2",), {"A2": ta}),), unread=("A2",))
    tb = film.t
    b_on_r = HandSeen("B", ("R",), {"R": tb})
    for _ in range(4):  # B lays a spit card while A's hand, lifting 5♣, still hides A2
        film.frame((b_on_r, HandSeen("A", ("A2",), {"A2": ta})), unread=("A2",))
    film.zones["R"] = "8H"
    for _ in range(10):  # read on R while A's hand still hides A2
        film.frame((HandSeen("A", ("A2",), {"A2": ta}),), unread=("A2",))
    tc = film.t
    for _ in range(3):  # B takes the spit card back before the turn is known
        film.frame((HandSeen("A", ("A2",), {"A2": ta}), HandSeen("B", ("R",), {"R": tc})), unread=("A2",))
    film.zones.update(R="6D", A2="empty")
    film.still(4)
    tp = film.touch("A", "L", 3, then="5C")  # A plays 5♣ onto 4♦
    film.still(10)
    events = _run(film, referee)
    assert [(e["player"], e["pile"], e["card"], e.t) for e in _of(events, "turn_up")] == [("A", "A2", "5C", ta)]
    assert [(e["card"], e.t) for e in _of(events, "play")] == [("5C", tp)]
    early = _of(events, "premature_spit")
    assert [(e["player"], e["move"], e.t) for e in early] == [("B", "A turns up the top of A2", tb)]

def test_a_spit_card_laid_while_the_turn_up_s_place_was_hidden_and_its_player_spat_is_no_premature_spit() -> None:
    film, referee = _only_a_turn_before_the_spit()
    for _ in range(4):  # A's hand comes over A2 and turns Q♣ (which fits nowhere), no contact seen
        film.frame((HandSeen("A", ("A2",)),))
    film.zones["A2"] = "QC"
    tb = film.t
    b_on_r = HandSeen("B", ("R",), {"R": tb})  # B's spit card on R
    for _ in range(4):
        film.frame((b_on_r, HandSeen("A", ("A2",))))
    film.zones["R"] = "8H"
    ta = film.t
    for _ in range(4):  # A's arm, still over A2, lays A's spit card on L
        film.frame((HandSeen("A", ("A2", "L"), {"L": ta}),))
    film.zones["L"] = "5S"
    tc = film.t
    for _ in range(4):  # A's hand touches A2 only now: the turn is dated here
        film.frame((HandSeen("A", ("A2",), {"A2": tc}),))
    film.still(10)
    film.play("B", "B1", "empty", "R")  # B's 9♣ on the spit card: play goes on
    film.still(4)
    events = _run(film, referee)
    assert [(e["player"], e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A", "A2", "QC")]
    assert not _of(events, "premature_spit")  # A2 may have been turned before B's card landed: A spat too


def test_a_spit_card_doubted_when_laid_leaves_its_pile_free_once_the_spit_is_made() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["KS", "back back |", "8C", "8H", "9S"], "B": ["9C"]},
                               spit={"A": "back back", "B": "back back"}, piles={"L": "4D", "R": "6D"})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "KS", "A2": "back", "A3": "8C", "A4": "8H", "A5": "9S",
                                                            "B1": "9C", "L": "4D", "R": "6D"})  # A's turn-up is the only move
    film.still(4)
    laid = round(film.t + 3 / FPS, 6)
    for i in range(6):  # A turns Q♣ on A2 (it fits nowhere) and lays a spit card on L, no contact seen on A2
        film.frame((HandSeen("A", ("A2", "L") if i >= 3 else ("A2",), {"L": laid} if i >= 3 else {}),))
    film.zones.update(A2="QC", L="JH")
    for _ in range(8):  # the spit card is read before the turn-up
        film.frame(unread=("A2",))
    film.still(8)
    film.touch("B", "R", 3, then="2H")  # B's spit card
    film.still(8)
    film.touch("A", "A2", 2, then="back")  # A lifts Q♣ and plays it onto J♥
    film.still(4)
    t = film.touch("A", "L", 3, then="QC")
    film.still(8)
    events = _run(film, SpitReferee(rules, state=state))
    assert [e["cards"] for e in _of(events, "spit")] == [{"L": "JH", "R": "2H"}]
    assert [(e["card"], e.t, e["called_at"]) for e in _of(events, "play")] == [("QC", t, t)]


def test_a_spit_card_waits_for_the_other_while_its_player_takes_back_a_refused_card() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["3H", "9C"], "B": ["KS"]}, spit={"A": "back", "B": "back"},
                               piles={"L": "4D", "R": "6D"})  # A's 3♥ onto 4♦ is the only move; spit cards unknown
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "3H", "A2": "9C", "B1": "KS", "L": "4D", "R": "6D"})
    film.still(4)
    referee = SpitReferee(rules, state=state)
    film.play("A", "A1", "empty", "L")  # 3♥ onto 4♦: nobody can move
    film.touch("B", "R", 3, then="5C")  # B's spit card at once
    film.touch("A", "A2", 2, then="empty")  # A lifts 9♣ and misplays it on L
    film.still(2)
    bad = film.touch("A", "L", 3, then="9C")
    film.still(40)
    film.touch("A", "L", 3, then="3H")  # A takes it back
    film.touch("A", "A2", 2, then="9C")
    film.still(10)
    film.touch("A", "L", 3, then="2C")  # A's spit card, 2.5 s after B's
    film.still(10)
    events = _run(film, referee)
    assert [(e["card"], e.t) for e in _of(events, "illegal_play")] == [("9C", bad)]
    assert [e["cards"] for e in _of(events, "spit")] == [{"L": "2C", "R": "5C"}]
    assert not _of(events, "resync") and not _of(events, "premature_spit")


def test_a_spit_card_laid_while_a_tie_on_the_other_pile_waits_is_no_premature_spit() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["5C", "3H"], "B": ["5S"]}, spit={"A": "back", "B": "back"},
                               piles={"L": "JD", "R": "4D"})  # after A's 3♥ onto 4♦ nobody can move
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "5C", "A2": "3H", "B1": "5S", "L": "JD", "R": "4D"})
    film.still(4)
    film.touch("A", "A2", 2, then="empty")  # A lifts 3♥
    film.touch("B", "B1", 2, then="empty")  # B lifts 5♠
    film.still(4)
    ta, _ = film.touch_both(("A", "R"), ("B", "R"), lag=0)  # in one frame: the order shows later
    film.zones["R"] = "5S"
    film.still(4)
    film.touch("A", "L", 3, then="2C")  # A spits: after 3♥ nobody could move
    film.still(10)
    film.touch("B", "R", 3, then="3H")  # B takes 5♠ back: it was refused, so 3♥ came first
    film.touch("B", "B1", 2, then="5S")
    film.still(6)
    film.touch("B", "R", 3, then="8H")  # B's spit card
    film.still(10)
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["card"], e.t) for e in _of(events, "play")] == [("3H", ta)]
    assert not _of(events, "premature_spit")
    assert [e["cards"] for e in _of(events, "spit")] == [{"L": "2C", "R": "8H"}]


def test_deal_end_counts_the_cards() -> None:
    film, referee = _settling()
    ends = _of(_run(film, referee), "deal_end")
    assert [(e["player"], e["counts"]) for e in ends] == [("A", {"A": 2, "B": 3})]


def test_deal_end_is_called_when_the_hand_laying_the_last_stock_card_stays_on_the_pile_until_the_slap() -> None:
    rules = SpitRules()
    state, film = _before_the_last_stock_card(rules)
    film.touch("A", "A1", 2, then="empty")  # A lifts the last stock card, 7♣
    film.still(4)
    t = film.t  # and lays it on the 6♦, the hand staying there: the 7♣ is never read on L
    for _ in range(36):
        film.frame((HandSeen("A", ("L",), {"L": t}),))
    for _ in range(4):  # the hand rises over the pile
        film.frame((HandSeen("A", (), {}),), L="occluded")
    slap = film.t
    for _ in range(3):  # A slaps L, B two frames later
        film.frame((HandSeen("A", ("L",), {"L": slap}),))
    for _ in range(3):
        film.frame((HandSeen("A", ("L",), {"L": slap}), HandSeen("B", ("L",), {"L": round(slap + 2 / FPS, 6)})))
    film.zones.update(L="empty", R="empty")  # the piles gathered
    film.still(10)
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("A", "7C", t)]
    assert [(e["player"], e.t) for e in _of(events, "deal_end")] == [("A", t)]
    assert [(e["pile"], e["winner"], e["contact"]) for e in _of(events, "slap")] == \
        [("L", "A", {"A": slap, "B": round(slap + 2 / FPS, 6)})]


def test_the_last_stock_card_is_laid_at_the_next_touch_though_its_hand_laid_a_card_judged_since_it_left_unseen() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["7C", "KS"], "B": ["QC", "back |"]}, spit={"A": "2C 3C", "B": "4C"},
                               piles={"L": "6D", "R": "QH"})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "7C", "A2": "KS", "B1": "QC", "B2": "back", "L": "6D", "R": "QH"})
    film.still(4)
    for _ in range(3):  # A's arm comes over both places
        film.frame((HandSeen("A", ("A1", "A2")),))
    lift = film.t
    for _ in range(2):  # and lifts the K♠; A1 not read since
        film.frame((HandSeen("A", ("A2",), {"A2": lift}),), unread=("A1",))
    film.zones["A2"] = "empty"
    for _ in range(4):
        film.frame(unread=("A1",))
    played = film.t
    for _ in range(3):  # lays it on the Q♥
        film.frame((HandSeen("A", ("R",), {"R": played}),), unread=("A1",))
    film.zones["R"] = "KS"
    for _ in range(6):
        film.frame(unread=("A1",))
    film.zones["A1"] = "empty"  # the 7♣ gone from A1, its hand unseen there
    film.still(6)  # read empty
    t = film.t  # the 7♣ laid on the 6♦, the hand staying there until the slap: never read on L
    for _ in range(36):
        film.frame((HandSeen("A", ("L",), {"L": t}),))
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("A", "KS", played), ("A", "7C", t)]
    assert [(e["player"], e.t) for e in _of(events, "deal_end")] == [("A", t)]


def test_a_slap_is_dated_from_the_first_rest_on_the_pile_of_a_hand_that_laid_its_last_stock_card() -> None:
    rules = SpitRules()
    state, film = _before_the_last_stock_card(rules)
    film.touch("A", "A1", 2, then="empty")  # A lifts the last stock card, 7♣
    film.still(4)
    t = film.t  # and lays it on the 6♦, the hand staying over the pile: the 7♣ is never read on L
    for _ in range(6):
        film.frame((HandSeen("A", ("L",), {"L": t}),))
    for _ in range(6):  # the hand moves on over the pile
        film.frame((HandSeen("A", ("L",)),))
    slap = film.t
    for _ in range(2):  # A slaps L, B two frames later
        film.frame((HandSeen("A", ("L",), {"L": slap}),))
    b = film.t
    for _ in range(4):
        film.frame((HandSeen("A", ("L",), {"L": slap}), HandSeen("B", ("L",), {"L": b})))
    for _ in range(2):  # A's hand lost over the pile for two frames, then found at rest there again
        film.frame((HandSeen("B", ("L",), {"L": b}),))
    again = film.t
    for _ in range(6):
        film.frame((HandSeen("A", ("L",), {"L": again}), HandSeen("B", ("L",), {"L": b})))
    film.zones.update(L="empty", R="empty")  # the piles gathered
    film.still(30)
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["player"], e.t) for e in _of(events, "deal_end")] == [("A", t)]
    assert [(e["pile"], e["winner"], e["contact"]) for e in _of(events, "slap")] == [("L", "A", {"A": slap, "B": b})]


def test_the_last_stock_card_laid_unseen_is_played_when_the_stream_ends_before_it_could_come_back() -> None:
    rules = SpitRules()
    state, film = _before_the_last_stock_card(rules)
    film.touch("A", "A1", 2, then="empty")  # A lifts the last stock card, 7♣
    film.still(4)
    t = film.t  # and lays it on the 6♦, the hand staying there: the 7♣ never read on L
    for _ in range(10):  # the stream ends a third of a second later
        film.frame((HandSeen("A", ("L",), {"L": t}),))
    referee = SpitReferee(rules, state=state)
    assert not _of(_run(film, referee), "play")  # still waiting for the card to come back
    events = referee.finish()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("A", "7C", t)]
    assert [(e["player"], e.t) for e in _of(events, "deal_end")] == [("A", t)]


def test_same_pile_slap_goes_to_the_first_hand() -> None:
    film, referee = _settling()
    ta, tb = film.touch_both(("B", "R"), ("A", "R"), lag=2)
    film.still(4)
    slap = _of(_run(film, referee), "slap")[0]
    assert (slap["pile"], slap["winner"]) == ("R", "B")
    assert slap["contact"] == {"A": tb, "B": ta}
    assert slap["margin_ms"] == pytest.approx(2000 / FPS, abs=0.01) and "verdict" not in slap.fields


def test_a_hand_coming_for_a_card_refused_just_before_the_deal_ended_is_not_slapping() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["KC"], "B": ["QS", "9S", "back |"]}, spit={"A": "2C 3C", "B": "4C"},
                               piles={"L": "6D", "R": "KH"})
    film = Film({z: "empty" for z in rules.place_names}
                | {"A1": "KC", "B1": "QS", "B2": "9S", "B3": "back", "L": "6D", "R": "KH"})
    film.still(4)
    film.play("B", "B1", "empty", "R")  # Q♠ onto K♥
    film.touch("A", "A1", 2, then="empty")  # A lifts K♣, the last stock card
    film.touch("B", "B2", 2, then="empty")  # B lifts 9♠
    film.still(3)
    tb = film.touch("B", "R", 3)  # B lays 9♠ on Q♠: it fits nowhere
    film.touch("A", "R", 3, then="KC")  # and A its K♣ over it at once, ending the deal: the 9♠ is never read there
    film.still(8)
    film.touch("B", "R", 3)  # B comes for the 9♠ under the K♣
    film.still(6)
    ta, tb2 = film.touch_both(("A", "L"), ("B", "L"), lag=2)  # A slaps L, B two frames later
    film.zones.update(L="empty", R="empty", B2="9S")
    film.still(10)
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("B", "9S", tb)]
    assert [e["player"] for e in _of(events, "deal_end")] == ["A"]
    assert [(e["pile"], e["winner"], e["contact"]) for e in _of(events, "slap")] == [("L", "A", {"A": ta, "B": tb2})]


def test_slap_closer_than_a_frame_is_too_close_to_call() -> None:
    film, referee = _settling()
    film.touch_both(("B", "R"), ("A", "R"), lag=0)
    film.still(4)
    slap = _of(_run(film, referee), "slap")[0]
    assert slap["verdict"] == TOO_CLOSE and slap["fallback"] == SLAP_FALLBACK
    assert slap["winner"] == "A"  # the first player out chooses
    assert slap["margin_ms"] == 0


def test_a_slap_too_close_to_time_goes_to_the_hand_seen_underneath() -> None:
    film, referee = _settling()
    start = film.t
    for _ in range(4):  # both come to rest on R in one frame; A's hand came down over B's
        film.frame((HandSeen("B", ("R",), {"R": start}, under=("A",)), HandSeen("A", ("R",), {"R": start})))
    film.still(4)
    slap = _of(_run(film, referee), "slap")[0]
    assert slap["verdict"] == UNDERNEATH and slap["underneath"] == "B" and "fallback" not in slap.fields
    assert (slap["pile"], slap["winner"]) == ("R", "B")  # not the first player out, A
    assert referee.state.held_count("A") == 2 + 2  # A's spit cards and the other pile, L (6D, 7C)


def _a_then_b_on_r(film: Film) -> tuple[float, float]:
    """A's hand comes to rest on R, B's two frames later (by the contacts, A would take R): their contact times."""
    ta = film.t
    film.frame((HandSeen("A", ("R",), {"R": ta}),))
    film.frame((HandSeen("A", ("R",), {"R": ta}),))
    return ta, film.t


def test_a_slap_on_one_pile_goes_to_the_hand_seen_lying_beneath_the_other_arm_whatever_the_contact_order() -> None:
    film, referee = _settling()
    ta, tb = _a_then_b_on_r(film)  # A's hand, hovering over R before it slapped, is found at rest there first
    for i in range(BENEATH_DELAY_FRAMES + BENEATH_FRAMES):  # but the frames after see B's hand beneath A's arm
        beneath = ("A",) if i >= BENEATH_DELAY_FRAMES and i % 3 else ()
        film.frame((HandSeen("A", ("R",), {"R": ta}), HandSeen("B", ("R",), {"R": tb}, beneath=beneath)))
    now = film.t - 1 / FPS  # the last of those frames: the slap waited for it
    film.still(4)
    slap = _of(_run(film, referee), "slap")[0]
    assert slap["verdict"] == BENEATH and slap["underneath"] == "B" and (slap["pile"], slap["winner"]) == ("R", "B")
    assert slap["contact"] == {"A": ta, "B": tb} and slap.t == tb and slap["called_at"] == pytest.approx(now)
    assert referee.state.held_count("A") == 2 + 2  # A's spit cards and the other pile, L (6D, 7C)


def test_a_slap_waiting_for_the_frames_that_see_which_hand_lies_beneath_is_decided_when_the_stream_ends() -> None:
    film, referee = _settling()
    ta, tb = _a_then_b_on_r(film)
    for i in range(BENEATH_DELAY_FRAMES + 3):  # the stream ends three frames into the votes, two seeing B beneath A's arm
        beneath = ("A",) if i >= BENEATH_DELAY_FRAMES + 1 else ()
        film.frame((HandSeen("A", ("R",), {"R": ta}), HandSeen("B", ("R",), {"R": tb}, beneath=beneath)))
    assert not _of(_run(film, referee), "slap")  # still waiting for votes
    slap = _of(referee.finish(), "slap")
    assert [(e["pile"], e["winner"], e["verdict"], e.t) for e in slap] == [("R", "B", BENEATH, tb)]


def test_a_slap_before_its_deal_s_end_is_judged_is_decided_by_the_hand_seen_beneath_in_the_frames_after_it() -> None:
    rules = SpitRules()
    state, film = _before_the_last_stock_card(rules)
    film.touch("A", "A1", 2, then="empty")  # A lifts the last stock card, 7♣
    film.still(4)
    t = film.t  # and lays it on the 6♦, the hand staying over L: the deal's end waits TIE_WAIT_S for the card
    for _ in range(6):
        film.frame((HandSeen("A", ("L",), {"L": t}),))
    for _ in range(4):
        film.frame((HandSeen("A", ("L",)),))
    ta = film.t  # A's hand comes to rest on L again, B's two frames later: by the contacts, A would take L
    film.frame((HandSeen("A", ("L",), {"L": ta}),))
    film.frame((HandSeen("A", ("L",), {"L": ta}),))
    tb = film.t
    for i in range(BENEATH_DELAY_FRAMES + BENEATH_FRAMES):  # but the frames after see B's hand beneath A's arm
        beneath = ("A",) if i >= BENEATH_DELAY_FRAMES else ()
        film.frame((HandSeen("A", ("L",), {"L": ta}), HandSeen("B", ("L",), {"L": tb}, beneath=beneath)))
    for _ in range(20):  # both hands still there when the deal's end is judged
        film.frame((HandSeen("A", ("L",), {"L": ta}), HandSeen("B", ("L",), {"L": tb})))
    events = _run(film, SpitReferee(rules, state=state))
    deal_end = _of(events, "deal_end")
    slap = _of(events, "slap")
    assert [(e["player"], e.t) for e in deal_end] == [("A", t)] and deal_end[0]["called_at"] > tb + 10 / FPS
    assert [(e["pile"], e["winner"], e["verdict"], e.t) for e in slap] == [("L", "B", BENEATH, tb)]


def test_a_slap_on_one_pile_seen_both_ways_beneath_goes_to_the_first_hand() -> None:
    film, referee = _settling()
    ta, tb = _a_then_b_on_r(film)
    for i in range(BENEATH_DELAY_FRAMES + BENEATH_FRAMES):  # one frame sees A beneath B's arm: no verdict that way
        beneath = {"A": ("B",) if i == BENEATH_DELAY_FRAMES else (), "B": ("A",) if i > BENEATH_DELAY_FRAMES else ()}
        film.frame(tuple(HandSeen(side, ("R",), {"R": t}, beneath=beneath[side]) for side, t in (("A", ta), ("B", tb))))
    film.still(4)
    slap = _of(_run(film, referee), "slap")[0]
    assert (slap["pile"], slap["winner"]) == ("R", "A") and "verdict" not in slap.fields


def test_slaps_on_different_piles_each_take_their_own() -> None:
    film, referee = _settling()
    film.touch_both(("B", "R"), ("A", "L"), lag=1)
    film.still(4)
    events = _run(film, referee)
    slap = _of(events, "slap")[0]
    assert slap["piles"] == {"A": "L", "B": "R"} and slap["margin_ms"] is None
    assert referee.state.held_count("A") == 2 + 2  # A's spit cards and L (6D, 7C)


def _slapped_too_close(spit_a: int, spit_b: int, under_r: int) -> tuple[Film, SpitState]:
    """A deal ended by A's 7C onto L (4 cards under its 6D; R's KH has `under_r` under it), both
    players slapping L in one frame (A, out first, takes it), and the next layout dealt and
    read; A and B held `spit_a` and `spit_b` spit cards."""
    rules = SpitRules()
    deck = [c for c in (f"{r}{s}" for s in "CDHS" for r in ("A", *map(str, range(2, 11)), "J", "Q", "K"))
            if c not in ("7C", "QS", "6D", "KH")]
    b, piles = 1 + spit_a, 1 + spit_a + spit_b
    state = SpitState.position(rules, {"A": ["7C"], "B": ["QS", f"{deck[0]} |"]},
                               spit={"A": " ".join(deck[1:b]), "B": " ".join(deck[b:piles])},
                               piles={"L": " ".join(deck[piles:piles + 4] + ["6D"]),
                                      "R": " ".join(deck[piles + 4:piles + 4 + under_r] + ["KH"])})
    zones = {z: "empty" for z in rules.place_names} | {"A1": "7C", "B1": "QS", "B2": "back", "L": "6D", "R": "KH"}
    film = Film(zones)
    film.still(4)
    film.play("A", "A1", "empty", "L")
    film.touch_both(("B", "L"), ("A", "L"), lag=0)
    film.zones.update(L="empty", R="empty")
    film.still(10)
    film.zones.update({z: c for z, c in zip(rules.place_names, ["2C", "3C", "4C", "5C", "6C", "2D", "3D", "4D", "5D", "7D"])})
    film.still(60)
    return film, state


def test_a_slap_too_close_to_call_is_settled_by_the_spit_cards_laid_after_it() -> None:
    film, state = _slapped_too_close(27, 7, 9)  # L 6 cards, R 10: A would have 33 cards (18 spit cards),
    # B 19 (4); the other way A 37 (22), B 15 (none)
    film.touch("A", "L", 3, then="9S")
    film.still(90)  # B lays no spit card: B has none, the slap went the other way
    events = _run(film, SpitReferee(SpitRules(), state=state))
    assert _of(events, "slap")[0]["verdict"] == TOO_CLOSE
    assert [e["cards"] for e in _of(events, "spit")] == [{"L": "9S"}]
    assert [e["spit_cards"] for e in _of(events, "resync")] == [{"A": 22, "B": 0}]
    assert _of(events, "resync")[0]["reason"] == OTHER_SLAP and not _of(events, "premature_spit")


def test_a_spit_alone_after_a_slap_too_close_to_call_is_joined_by_the_other_s_spit_card() -> None:
    film, state = _slapped_too_close(31, 11, 1)  # L 6 cards, R 2: A would have 37 cards (22 spit cards),
    # B 15 (none); the other way A 33 (18), B 19 (4)
    film.touch("A", "L", 3, then="9S")  # A spits alone
    film.still(3)
    film.touch("B", "R", 3, then="8H")  # and B too: the slap went the other way
    film.still(20)
    referee = SpitReferee(SpitRules(), state=state)
    events = _run(film, referee)
    assert [e["cards"] for e in _of(events, "spit")][-1] == {"L": "9S", "R": "8H"}
    assert {p: referee.state.spit_count(p) for p in "AB"} == {"A": 17, "B": 3}
    assert [e["reason"] for e in _of(events, "resync")] == [OTHER_SLAP] and not _of(events, "premature_spit")


def test_a_slap_too_close_to_call_settled_by_the_spit_cards_counts_the_stock_places_as_the_other_way_dealt_them() -> None:
    film, state = _slapped_too_close(34, 8, 1)  # L 6 cards, R 2: B would have 12 cards (stock places 1, 2, 3,
    # 3, 3, no spit card), A 40; the other way B 16 (1, 2, 3, 4, 5 and one spit card), A 36 (21): every place filled
    film.touch("A", "L", 3, then="9S")  # A spits
    film.still(3)
    film.touch("B", "R", 3, then="8H")  # and B too: the slap went the other way
    film.still(20)
    referee = SpitReferee(SpitRules(), state=state)
    events = _run(film, referee)
    assert [e["cards"] for e in _of(events, "spit")][-1] == {"L": "9S", "R": "8H"}
    assert [e["reason"] for e in _of(events, "resync")] == [OTHER_SLAP]
    assert [len(referee.state.pile(zone)) for zone in SpitRules().stock_names[1]] == [1, 2, 3, 4, 5]
    assert {p: referee.state.spit_count(p) for p in "AB"} == {"A": 20, "B": 0}


def _guessed(stocks: dict[str, list[str]], spit: dict[str, str], piles: dict[str, str]) -> tuple[Film, SpitReferee]:
    """A referee going on from a position whose counts a re-read of the table guessed, filmed as
    written; the rest of the deck lies under spit pile L's top."""
    rules = SpitRules()
    written = SpitState.position(rules, stocks, spit=spit, piles=piles)
    under = " ".join(["back"] * (rules.total_cards - written.card_count()))
    state = SpitState.position(rules, stocks, spit=spit, piles=dict(piles, L=f"{under} {piles['L']}"))
    zones: dict[str, str] = {z: "empty" for z in rules.place_names} | piles
    for i, player in enumerate(rules.player_names):
        for zone, text in zip(rules.stock_names[i], stocks.get(player, ())):
            top = state.top(zone)
            zones[zone] = "empty" if not text else top.code if top is not None else "back"
    referee = SpitReferee(rules)
    referee.resume(state, 0.0, counts_known=False)
    film = Film(zones)
    film.still(4)
    return film, referee


def test_a_stock_place_seen_empty_under_its_last_card_on_guessed_counts_ends_the_deal() -> None:
    film, referee = _guessed({"A": ["back 7C"], "B": ["QS", "back |"]}, {"A": "back", "B": "back back"},
                             {"L": "6D", "R": "KH"})  # A1 counted with a card under 7♣: it has none
    t = film.play("A", "A1", "empty", "L")
    tb, ta = film.touch_both(("B", "R"), ("A", "R"), lag=2)
    film.still(10)
    events = _run(film, referee)
    ends = _of(events, "deal_end")
    assert [(e["player"], e.t) for e in ends] == [("A", t)] and ends[0]["called_at"] < t + 0.5
    assert [(e["pile"], e["winner"]) for e in _of(events, "slap")] == [("R", "B")]
    assert [e["reason"] for e in _of(events, "resync")] == [RECOUNT]


def test_a_card_turned_and_taken_unseen_from_a_place_counted_by_a_re_read_is_no_recount() -> None:
    film, referee = _guessed({"A": ["back 7C", "2S"], "B": ["QS", "back |"]}, {"A": "back", "B": "back back"},
                             {"L": "6D", "R": "KH"})
    film.play("A", "A1", "back", "L")  # 7♣ onto 6♦, A1 seen face down
    film.touch("A", "A1", 4, then="empty")  # the card under it turned and taken, never seen face up
    film.still(2)
    t = film.touch("A", "R", 3, then="QH")  # onto K♥
    film.still(10)
    events = _run(film, referee)
    assert [(e["card"], e["to"]) for e in _of(events, "play")] == [("7C", "L"), ("QH", "R")]
    assert _of(events, "play")[-1].t == t
    assert not _of(events, "resync") and not _of(events, "deal_end") and not _of(events, "premature_spit")


def test_a_place_read_face_down_if_only_unchanged_after_the_card_taken_from_it_landed_is_no_recount() -> None:
    film, referee = _guessed({"A": ["back back |", ""], "B": ["QS", "back |"]}, {"A": "back", "B": "back back"},
                             {"L": "6D", "R": "KH"})
    film.touch("A", "A1", 4)  # A turns A1's top under the hand, never seen face up
    film.touch("A", "A2", 3, then="2S")  # and moves it to the space A2
    film.still(3)  # A1 read face down, as before the hand came: no change of its reading
    film.touch("A", "A1", 4, then="empty")  # the card under it turned and taken, never seen face up
    film.still(2)
    t = film.touch("A", "L", 3, then="7C")  # onto 6♦
    film.still(10)
    events = _run(film, referee)
    assert [(e["card"], e["to"]) for e in _of(events, "move_to_space")] == [("2S", "A2")]
    assert [(e["card"], e["from"], e["to"], e.t) for e in _of(events, "play")] == [("7C", "A1", "L", t)]
    assert not _of(events, "resync") and not _of(events, "spit") and not _of(events, "deal_end")


def test_a_re_read_table_on_which_a_player_s_stock_is_empty_is_a_deal_they_ended() -> None:
    film, referee = _guessed({"A": ["7C"], "B": ["QS", "back |"]}, {"A": "back", "B": "back back"},
                             {"L": "6D", "R": "KH"})
    film.touch("A", "A1", 2, then="empty")  # A lifts 7♣, its last stock card
    film.still(4)
    film.zones["L"] = "8H"  # and L shows a card no move explains (its hand never seen there)
    film.still(150)
    film.touch_both(("B", "R"), ("A", "R"), lag=2)
    film.still(6)
    events = _run(film, referee)
    resync = _of(events, "resync")[-1]
    assert resync["ended_by"] == "A" and resync["piles"]["L"][1] == "8H"
    assert [e["player"] for e in _of(events, "deal_end")] == ["A"]
    assert [(e["pile"], e["winner"]) for e in _of(events, "slap")] == [("R", "B")]


def test_a_re_read_table_has_a_card_refused_on_a_pile_just_before_lying_on_the_card_read_under_it() -> None:
    film = _opened()  # L shows 8♦
    film.touch("A", "A3", 2, then="back")  # A lifts K♦
    film.still(4)
    film.touch("A", "L", 3, then="KD")  # and lays it on 8♦: refused once read there
    film.still(3)
    film.zones["B1"] = "4C"  # B1 then shows a card no move explains: the table is read again 2 s later
    film.still(75)  # K♦ still lying on L
    events = film.judge()
    assert [e["card"] for e in _of(events, "illegal_play")] == ["KD"]
    assert [e["piles"]["L"][1] for e in _of(events, "resync")] == ["8D"]


def test_a_table_whose_spit_piles_were_gathered_unseen_is_read_as_between_deals() -> None:
    film = _opened()
    film.zones.update({z: "empty" for z in film.zones})  # the deal ended and the table was cleared, unseen
    film.still(90)
    film.zones.update(STUCK)  # the next layout
    film.still(60)
    film.touch("A", "L", 3, then="6H")
    film.touch("B", "R", 3, then="6S")
    film.still(6)
    events = film.judge()
    resync = _of(events, "resync")[-1]
    assert resync["held"] == {"A": 26, "B": 26}
    layouts = _of(events, "layout")
    assert len(layouts) == 2 and layouts[-1]["counts"] == {"A": 26, "B": 26} and layouts[-1].t > resync.t
    assert _of(events, "spit")[-1]["cards"] == {"L": "6H", "R": "6S"}


def test_a_spit_card_laid_by_a_player_counted_out_of_them_joins_the_spit() -> None:
    film, referee = _guessed({"A": ["2S"], "B": ["9H"]}, {"A": "back back", "B": ""},
                             {"L": "6D", "R": "6C"})  # nobody can move; B counted with no spit card
    film.touch("A", "L", 3, then="JH")
    film.still(3)
    film.touch("B", "R", 3, then="QC")  # B has one after all: A's spit alone is taken back, both spat
    film.still(10)
    events = _run(film, referee)
    assert [e["cards"] for e in _of(events, "spit")] == [{"L": "JH"}, {"L": "JH", "R": "QC"}]
    assert [e["reason"] for e in _of(events, "resync")] == [SPIT_LAID] and not _of(events, "premature_spit")


def test_a_stock_card_laid_on_a_lone_spit_card_shows_the_other_player_had_none() -> None:
    film, referee = _guessed({"A": ["2S", "QH"], "B": ["9H"]}, {"A": "back back", "B": "back"},
                             {"L": "6D", "R": "6C"})  # nobody can move; B counted with a spit card it does not have
    film.touch("A", "L", 3, then="JH")  # A spits alone
    film.still(10)
    t = film.play("A", "A2", "empty", "L")  # Q♥ onto J♥
    events = _run(film, referee)
    assert [e["cards"] for e in _of(events, "spit")] == [{"L": "JH"}]
    assert [(e["card"], e.t) for e in _of(events, "play")] == [("QH", t)]
    assert [e["reason"] for e in _of(events, "resync")] == [ALONE]
    assert not _of(events, "illegal_play") and not _of(events, "premature_spit")


def test_stacking_without_the_option_is_an_illegal_play() -> None:
    film = _opened()
    film.touch("A", "A1", 2, then="empty")  # 7C onto A4's 2S
    film.still(4)
    film.touch("A", "A4", 3, then="7C")
    film.still(6)
    illegal = _of(film.judge(), "illegal_play")
    assert [(e["card"], e["to"]) for e in illegal] == [("7C", "A4")]
    assert "may not be stacked" in illegal[0]["reason"]


def test_a_card_put_on_a_place_read_empty_since_is_not_stacked() -> None:
    film = _opened()
    film.frame(A4="empty")  # A4's 2S gone by a move not seen (read empty, if only for a frame)
    film.still(4)
    film.touch("A", "A1", 2, then="empty")  # 7C into A4
    film.still(4)
    film.touch("A", "A4", 3, then="7C")
    film.still(6)
    assert not _of(film.judge(), "illegal_play")


def test_a_card_is_not_refused_on_a_top_laid_after_its_touch() -> None:
    film = _opened(layout=dict(LAYOUT, B4="7S"))
    film.touch("A", "A2", 2, then="back")  # A lifts 9H
    film.still(2)
    tb = film.t
    for _ in range(4):  # B's hand, over B4 all along (7S never seen lifted), lays 7S on 8D
        film.frame((HandSeen("B", ("B4", "L"), {"L": tb}),))
    for _ in range(13):
        film.frame((HandSeen("B", ("B4",)), HandSeen("A", ("L",))))
    ta = film.t
    for _ in range(4):  # A's 9H on it, over the race window later as the contacts are dated
        film.frame((HandSeen("B", ("B4",)), HandSeen("A", ("L",), {"L": ta})))
    film.zones["L"] = "9H"
    for _ in range(8):
        film.frame((HandSeen("B", ("B4",)),))
    for _ in range(4):  # A takes 9H back, its hand over L: 7S shows
        film.frame((HandSeen("B", ("B4",)), HandSeen("A", ("L",))))
    film.zones["L"] = "7S"
    for _ in range(20):
        film.frame((HandSeen("B", ("B4",)),))
    film.zones["B4"] = "back"
    film.still(10)
    assert not [e for e in _of(film.judge(), "illegal_play") if e["card"] == "7S"]  # not "7♠ is not next to 9♥": it touched first


def test_a_card_back_in_its_place_a_frame_after_a_touch_was_not_refused_there() -> None:
    film = _opened()
    film.touch("A", "A3", 2, then="back")  # A lifts KD
    film.still(8)
    t = film.t
    film.frame((HandSeen("A", ("L",), {"L": t}),))  # its hand touches L (a spit card, say) ...
    film.zones["A3"] = "KD"  # ... and KD is back in A3 a frame later: it never went to L
    for _ in range(3):
        film.frame((HandSeen("A", ("L",), {"L": t}),))
    film.still(12)
    assert not _of(film.judge(), "illegal_play")


def test_a_card_laid_on_a_refused_card_still_lying_there_is_judged_on_the_card_under_it() -> None:
    film = _opened()
    film.zones["L"] = "QC"  # a card the engine cannot explain shows on L (it still has 8D there)
    film.still(6)
    film.play("A", "A5", "back", "L")  # 5H, refused on either, left lying there
    film.play("B", "B4", "back", "L")  # B's JD on it: next to QC (what lay under 5H), not to 8D
    film.still(6)
    assert [(e["player"], e["card"]) for e in _of(film.judge(), "illegal_play")] == [("A", "5H")]


def _kd_lifted_beside_a_hidden_9h(covered: bool) -> Film:
    """A's arm over A2 (9♥, which plays on 8♦) all along lifts A3's K♦, touches L and K♦ comes back;
    `covered`: L stays hidden until B's 7♠ is laid on it, else L shows 8♦ again after the touch."""
    film = _opened(layout=dict(LAYOUT, B4="7S"))
    for _ in range(3):
        film.frame((HandSeen("A", ("A2", "A3")),))
    film.zones["A3"] = "back"
    for _ in range(6):
        film.frame((HandSeen("A", ("A2",)),))
    t = film.t
    for _ in range(4):
        film.frame((HandSeen("A", ("A2", "L"), {"L": t}),))
    arm = HandSeen("A", ("A2", "L") if covered else ("A2",))
    for _ in range(4):
        film.frame((arm,))
    if covered:
        for _ in range(2):
            film.frame((arm, HandSeen("B", ("B4",), {"B4": film.t})))
        film.zones["B4"] = "back"
        for _ in range(4):
            film.frame((arm,))
        tb = film.t
        for _ in range(3):
            film.frame((HandSeen("A", ("A2",)), HandSeen("B", ("L",), {"L": tb})))
        film.zones["L"] = "7S"
    for _ in range(10):
        film.frame((HandSeen("A", ("A2",)),))
    film.zones["A3"] = "KD"
    for _ in range(10):
        film.frame((HandSeen("A", ("A2",)),))
    film.still(10)
    return film


def test_a_card_lifted_unseen_is_not_refused_at_a_touch_when_a_card_hidden_under_the_arm_plays_there() -> None:
    assert not _of(_kd_lifted_beside_a_hidden_9h(covered=True).judge(), "illegal_play")  # 9♥ may lie under 7♠
    refused = _of(_kd_lifted_beside_a_hidden_9h(covered=False).judge(), "illegal_play")  # 8♦ seen again: no card laid
    assert [(e["player"], e["card"]) for e in refused] == [("A", "KD")]


def test_referee_refuses_rule_sets_it_cannot_watch() -> None:
    with pytest.raises(UnsupportedRules):
        SpitReferee("five-card-hand")
    with pytest.raises(UnsupportedRules):
        SpitReferee("three-players")


def _speahx(*steps: tuple[str, str]) -> list[Event]:
    """A Speahx pile: each step a side laying (or taking) what `P` then shows."""
    film = Film({"P": "empty"})
    film.still(4)
    for side, shows in steps:
        film.touch(side, "P", 3, then=shows)
        film.still(5)
    referee = SpeahxReferee(get_rules("speahx"))
    tracker = Tracker()
    return [event for obs in film.frames for event in referee.update(tracker.update(obs))]


def test_speahx_lay_is_checked_against_the_pile() -> None:
    events = _speahx(("A", "7H"), ("B", "9H"), ("C", "QS"))
    assert [(e.type, e["player"], e["card"]) for e in events] == [
        ("play", "A", "7H"), ("play", "B", "9H"), ("illegal_play", "C", "QS")]
    assert events[2]["reason"] == "Q♠ matches neither the suit nor the rank of 9♥"


def test_speahx_ten_burns_the_pile() -> None:
    events = _speahx(("A", "7H"), ("B", "10S"), ("B", "empty"), ("B", "4C"))
    assert [e.type for e in events] == ["play", "play", "burn", "play"]
    assert events[2]["by"] == "ten"


def test_speahx_named_suit_gets_the_benefit_of_the_doubt() -> None:
    events = _speahx(("A", "7H"), ("B", "2H"), ("C", "KS"))
    assert [(e.type, e.get("certain")) for e in events] == [("play", True), ("play", True), ("play", False)]


def test_speahx_pile_taken_is_a_pick_up() -> None:
    events = _speahx(("A", "7H"), ("B", "8H"), ("C", "empty"))
    assert [(e.type, e["player"]) for e in events][-1] == ("pick_up", "C")


def test_a_resumed_referee_dates_a_hand_already_on_a_pile_by_its_first_frame() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["3H", "9C"], "B": ["KS"]}, spit={"A": "2C", "B": "5C"},
                               piles={"L": "4D", "R": "6D"})  # the position the log rebuilt
    film = Film({z: "empty" for z in rules.place_names} | {"A2": "9C", "B1": "KS", "L": "4D", "R": "6D"})
    film.still(30)  # before the resume (the vision saw them, the referee does not)
    resumed = film.t
    for _ in range(3):  # A's hand laying 3♥ on L since 0.1 s before the resume
        film.frame((HandSeen("A", ("L",), {"L": round(resumed - 3 / FPS, 6)}),))
    film.zones["L"] = "3H"
    film.still(10)
    referee = SpitReferee(rules)
    referee.resume(state, resumed)
    tracker = Tracker()
    events = [event for obs in film.frames[30:] for event in referee.update(tracker.update(obs))]
    assert [(e["card"], e.t) for e in _of(events, "play")] == [("3H", resumed)]


def test_referee_rereads_the_table_when_nothing_explains_it() -> None:
    film = _opened()
    film.touch("B", "R", 3, then="JH")  # called a premature spit, but the card stays
    film.still(150)  # a refused card lies there for two seconds, then two more unexplained
    t = film.play("B", "B1", "empty", "R")  # QS onto JH: judged against what lies there
    events = film.judge()
    assert _of(events, "premature_spit")
    plays = _of(events, "play")
    assert [(e["card"], e["to"], e.t) for e in plays] == [("QS", "R", t)]
    assert not _of(events, "illegal_play")


def test_a_re_read_counts_one_card_fewer_where_the_engine_s_face_up_top_is_gone_for_good() -> None:
    film = _opened()
    film.touch("B", "R", 3, then="JH")  # called a premature spit, but the card stays
    film.still(20)
    film.over("A", "A3", 3)  # A's hand over A3 (no contact seen): K♦ gone unseen, 5♣ turned under it
    film.zones["A3"] = "5C"
    film.over("B", "B1", 3)  # Q♠ gone unseen, and J♦ moved from B4 into the space
    film.zones["B1"] = "JD"
    film.zones["B4"] = "back"
    film.zones["A2"] = "back"  # 9♥ gone, read nowhere: it may be in A's hand, to come back
    film.still(150)
    resyncs = _of(film.judge(), "resync")
    assert len(resyncs) == 1
    stocks = resyncs[0]["stocks"]
    assert (stocks["A3"], stocks["B1"], stocks["B4"], stocks["A2"], stocks["B2"]) == \
        ([2, "5C"], [1, "JD"], [3, None], [2, None], [2, "4D"])


def test_a_place_showing_the_card_played_from_it_and_covered_on_a_pile_is_misread_not_re_read() -> None:
    film = _opened()  # R shows 3♣
    tb = film.play("B", "B2", "back", "R")  # B's 4♦ onto 3♣
    ta = film.play("A", "A5", "back", "R")  # A's 5♥ covers it
    film.over("B", "B2", 6)  # B turns up 4♥ at B2, read as 4♦ (the card under A's 5♥) for three seconds
    film.zones["B2"] = "4D"
    film.still(90)
    film.zones["B2"] = "4H"
    tc = film.play("B", "B2", "back", "R")  # B's 4♥ onto 5♥
    film.still(20)
    events = film.judge()
    assert not _of(events, "resync")
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("B", "4D", tb), ("A", "5H", ta), ("B", "4H", tc)]


def _turned_under_the_hand_across_a_re_read(reported_after: int) -> None:
    """B turns the 6♥ on B2 under a hand that lies over it from before a re-read of the table (at
    5.5 s) until after it, its contact reported `reported_after` frames into that stretch: the
    turn-up is dated from the contact."""
    film = _opened()
    film.play("B", "B2", "back", "R")  # 4♦ onto 3♣: B2 face down
    film.touch("B", "R", 3, then="JH")  # called a premature spit, but the card stays
    film.still(120)  # unexplained long enough for the table to be read again (at 5.5 s)
    t = film.t
    for i in range(40):
        film.frame((HandSeen("B", ("B2",), {"B2": t} if i >= reported_after else {}),))
    film.zones["B2"] = "6H"
    film.still(20)
    events = film.judge()
    resyncs = _of(events, "resync")
    assert len(resyncs) == 1 and t < resyncs[0].t < t + 1.0
    assert [(e["pile"], e["card"], e.t) for e in _of(events, "turn_up")] == [("B2", "6H", t)]


def test_a_contact_reported_after_a_re_read_is_judged_by_when_it_began() -> None:
    _turned_under_the_hand_across_a_re_read(reported_after=30)


def test_a_contact_known_at_a_re_read_of_a_place_under_the_hand_dates_the_card_turned_there() -> None:
    _turned_under_the_hand_across_a_re_read(reported_after=2)


def test_the_table_is_not_read_again_while_a_hand_carries_a_stock_card_lifted_from_its_place() -> None:
    film = _opened()
    film.touch("B", "R", 3, then="JH")  # called a premature spit, but the card stays
    film.still(115)  # unexplained long enough for the table to be read again
    film.touch("B", "B1", 2, then="empty")  # B lifts Q♠
    for _ in range(20):
        film.frame((HandSeen("B", ()),))  # and carries it
    t = film.touch("B", "R", 3, then="QS")  # onto J♥
    film.still(20)
    events = film.judge()
    resyncs = _of(events, "resync")
    assert len(resyncs) == 1 and resyncs[0].t > t
    assert resyncs[0]["piles"]["R"][1] == "QS" and resyncs[0]["stocks"]["B1"] == [0, None]


def test_a_layout_place_the_reader_cannot_make_out_is_dealt_with_its_top_unread() -> None:
    film = Film({z: v for z, v in dict(LAYOUT, L="empty", R="empty").items() if z != "B3"})  # B3 never read
    film.still(30)
    film.touch("A", "L", 3, then="8D")
    film.touch("B", "R", 3, then="3C")
    film.still(6)
    film.zones["B3"] = "8S"  # read at last, its player's hand never there
    film.still(6)
    film.play("B", "B3", "back", "R")  # 8S is not next to 3C: refused, so it was known
    events = film.judge()
    layout = _of(events, "layout")[0]
    assert layout["counts"] == {"A": 26, "B": 26} and "B3" not in layout["tops"]
    assert _of(events, "spit")[0]["cards"] == {"L": "8D", "R": "3C"}
    assert _of(events, "turn_up") == []
    assert [(e["player"], e["card"], e["reason"]) for e in _of(events, "illegal_play")] == [("B", "8S", "8♠ is not next to 3♣")]


def test_a_layout_showing_one_card_twice_is_read_with_the_less_sure_place_doubted() -> None:
    """B3 (8♠) misread 9♥, A2's card, less surely than A2: the layout is read all the same, B3's top
    taken as not read until it is read as another card; A2's 9♥ plays."""
    film = Film(dict(LAYOUT, B3="9H", L="empty", R="empty"))
    film.still(6)
    film.touch("A", "L", 3, then="8D")
    film.touch("B", "R", 3, then="3C")
    film.still(6)
    film.play("A", "A2", "back", "L")  # 9♥ onto 8♦, while B3 still reads 9♥
    film.zones["B3"] = "8S"  # read right at last, its player's hand never there
    film.still(6)
    film.play("B", "B3", "back", "R")  # 8♠ is not next to 3♣: refused, so it was known
    film.frames = [Observation(o.t, o.frame, {z: ZoneReading(r.seen, 0.7) if z == "B3" and r.seen == "9H" else r
                                              for z, r in o.zones.items()}, o.hands) for o in film.frames]
    events = film.judge()
    layout = _of(events, "layout")[0]
    assert layout["counts"] == {"A": 26, "B": 26} and layout["tops"]["A2"] == "9H" and "B3" not in layout["tops"]
    assert [(e["card"], e["to"]) for e in _of(events, "play")] == [("9H", "L")]
    assert [(e["player"], e["card"], e["reason"]) for e in _of(events, "illegal_play")] == [("B", "8S", "8♠ is not next to 3♣")]


def test_the_referees_parts_never_define_the_same_method() -> None:
    """`SpitReferee` is made of mixins sharing its state: a method two parts both define would
    silently take the place of the other's (the method resolution order picks one)."""
    seen: dict[str, str] = {}
    for part in SpitReferee.__mro__[1:]:
        if part.__module__.startswith("referee.judge.spit."):
            for name, value in vars(part).items():
                if callable(value) and not name.startswith("__"):
                    assert name not in seen, f"{name} is defined by {seen[name]} and {part.__name__}"
                    seen[name] = part.__name__
    assert len(seen) > 20


def test_no_premature_spit_on_a_position_that_cannot_be_rebuilt_for_when_the_card_landed() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["QS", "KH"], "B": ["KS"]}, spit={"A": "back back", "B": ""},
                               piles={"L": "6H", "R": "3S"})  # nobody can move
    referee = SpitReferee(rules, state=state)
    referee._apply(Spit((("L", parse_card("AD")),)), (24.4, 732), contact={"A": 24.4})  # A's spit card
    referee._apply(Play("A", parse_card("KH"), "A2", "L"), (25.267, 758))  # K♥ on it, dated by its first sight
    # B's card that touched R at 24.267: A's spit card of that stalemate is left out, K♥ (no touch seen
    # dating it) is kept and cannot be played on 6♥: the position is not known (not today's, where Q♠ plays)
    assert referee._landed_on(24.267, "B") is None
    assert referee._landed_on(24.5, "A") is not None


def test_a_play_made_after_a_re_read_does_not_show_a_spit_card_laid_before_it_premature() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["5D"], "B": ["KS"]}, spit={"A": "back back", "B": "back back"},
                               piles={"L": "9H", "R": "6C"})
    referee = SpitReferee(rules, state=state)
    move = Play("A", parse_card("5D"), "A1", "R")
    referee._apply(move, (11.367, 341))  # A's 5♦ played at 11.367
    spit = ("L", parse_card("8C"), "B")  # B's card laid at 9.867
    assert referee._sure_of(move, 9.867, spit)  # the play made since shows the move existed
    referee._resynced_at = 11.167  # ... unless the table was read again between (the position before it was wrong)
    assert not referee._sure_of(move, 9.867, spit)


def test_a_card_played_then_gone_to_show_one_laid_before_it_was_taken_back_though_its_hand_was_not_seen() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["9H", "QC"], "B": ["7S", "KS"]}, spit={"A": "back back", "B": "back back"},
                               piles={"L": "8D", "R": "3C"})
    referee = SpitReferee(rules, state=state)
    referee._touches["L"] = [Touch("L", "A", 0.8, 24, True), Touch("L", "B", 1.133, 34, True)]
    referee._apply(Play("B", parse_card("7S"), "B1", "L"), (1.133, 34))  # judged played: A's 9H unseen under it
    referee.readings["L"] = "7S"
    referee._now = (2.0, 60)
    referee._played_second("L", "9H")  # 7S gone, 9H shows; B's hand not seen back, no other hand there since
    assert [(e["player"], e["card"], e.t) for e in _of(referee._out, "play")][-1] == ("A", "9H", 0.8)
    assert referee.state.top("L") == parse_card("9H")


def test_a_card_laid_a_race_window_before_the_one_taken_back_off_it_came_first_give_or_take_a_frame() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["9H", "QC"], "B": ["7S", "KS"]}, spit={"A": "back back", "B": "back back"},
                               piles={"L": "8D", "R": "3C"})
    referee = SpitReferee(rules, state=state)
    referee._touches["L"] = [Touch("L", "A", 0.633333, 19, True), Touch("L", "B", 1.133333, 34, True),
                             Touch("L", "B", 1.8, 54, False)]  # contacts half a second apart as dated; B's hand back
    referee._apply(Play("B", parse_card("7S"), "B1", "L"), (1.133333, 34))
    referee.readings["L"] = "7S"
    referee._now = (2.0, 60)
    referee._played_second("L", "9H")
    assert [(e["player"], e["card"], e.t) for e in _of(referee._out, "play")][-1] == ("A", "9H", 0.633333)


def test_the_position_at_a_time_leaves_out_the_moves_dated_later_in_whatever_order_they_were_found() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["10C", "3H"], "B": ["KS", "8C |"]}, spit={"A": "2C", "B": "5C"},
                               piles={"L": "9D", "R": "6D"})
    referee = SpitReferee(rules, state=state)
    referee._apply(Play("A", parse_card("10C"), "A1", "L"), (5.1, 153))  # found first
    referee._apply(TurnUp("B", "B2", parse_card("8C")), (4.4, 132))  # a turn-up read late, dated before it
    assert referee._expected_in(referee._state_at(5.0), "L") == "9D"
    assert referee._state_at(5.0).top("B2") == parse_card("8C")
    assert referee._expected_in(referee._state_at(5.1, before=True), "L") == "9D"
    assert referee._expected_in(referee._state_at(5.1), "L") == "10C"


def test_a_recount_of_a_stock_place_keeps_the_positions_before_it_for_a_refusal_judged_after_it() -> None:
    film, referee = _guessed({"A": ["back back |", "QD"], "B": ["KC", "back |"]}, {"A": "back", "B": "back back"},
                             {"L": "6D", "R": "KH"})  # A1 counted with two face-down cards: it has one
    film.play("A", "A2", "empty", "R")  # Q♦ onto K♥
    film.still(6)
    _ = [film.frame((HandSeen("A", ("A1",), {"A1": film.t}),)) for _ in range(4)]  # A turns J♠ on A1, unseen
    ta = film.t
    _ = [film.frame((HandSeen("A", ("A1", "R"), {"R": ta}),)) for _ in range(3)]  # and lays it on Q♦, not read
    arm = HandSeen("A", ("A1",), {})
    film.touch("B", "B1", 2, then="empty")  # B lifts K♣
    tb = film.touch("B", "R", 3, then="KC")  # and lays it on the J♠: it fits on Q♦, not on J♠
    _ = [film.frame((arm,)) for _ in range(20)]
    _ = [film.frame((arm, HandSeen("B", ("R",), {"R": film.t}))) for _ in range(3)]  # B takes it back
    film.zones.update(R="JS", A1="empty")  # the J♠ shows as A's arm leaves A1, empty
    film.still(4)
    film.touch("B", "B1", 2, then="KC")
    film.still(10)
    events = _run(film, referee)
    assert [(e["card"], e.t) for e in _of(events, "play")][-1:] == [("JS", ta)]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("B", "KC", tb)]
    assert [e["reason"] for e in _of(events, "resync")] == [RECOUNT]


def test_a_layout_dealt_after_the_game_s_end_is_read_and_the_game_goes_on() -> None:
    rules = SpitRules()  # one spit pile: A's last stock card ends the game (a deal end misjudged looks the same)
    state = SpitState.position(rules, {"A": ["7C"], "B": ["QS", "back back back |"]}, spit={"B": "4C 5C 6C 8C 9C"},
                               piles={"L": "6D"}, held={"B": " ".join(["back"] * 41)})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "7C", "B1": "QS", "B2": "back", "L": "6D"})
    film.still(4)
    film.play("A", "A1", "empty", "L")
    film.still(10)
    film.zones.update(B1="empty", B2="empty", L="empty")  # the cards gathered
    film.still(10)
    film.zones.update(A1="9H", A2="KD", A3="2S", A4="5H", A5="JC", B1="QS", B2="4D", B3="8S", B4="JD", B5="AC")
    dealt = film.t
    film.still(60)
    referee = SpitReferee(rules, state=state)
    events = _run(film, referee)
    assert [e.type for e in events][:3] == ["play", "deal_end", "game_end"]
    layouts = _of(events, "layout")
    assert len(layouts) == 1 and layouts[0].t >= dealt and sum(layouts[0]["counts"].values()) == 52
    assert referee.state.phase == "start"


def test_a_card_turned_under_the_arm_is_not_judged_taken_back_from_a_pile_whose_change_is_not_read_yet() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["KS"], "B": ["back |", "back |", "3D"]}, spit={"A": "back", "B": "back"},
                               piles={"L": "JD", "R": "2D"})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "KS", "B1": "back", "B2": "back", "B3": "3D",
                                                          "L": "JD", "R": "2D"})
    film.still(4)
    film.play("B", "B3", "empty", "R")  # 3♦ on 2♦: R read since
    film.still(4)
    t1 = film.t
    for _ in range(3):  # B turns 5♣ on B1 under its arm
        film.frame((HandSeen("B", ("B1", "B2"), {"B1": t1}),))
    film.zones["B1"] = "5C"
    t2 = film.t
    for _ in range(3):  # and 4♠ on B2, taking it
        film.frame((HandSeen("B", ("B1", "B2"), {"B2": t2}),))
    film.zones["B2"] = "empty"
    tr = film.t
    for _ in range(3):  # lays 4♠ on R, the arm over B1 and B2
        film.frame((HandSeen("B", ("B1", "B2", "R"), {"R": tr}),))
    film.zones["R"] = "4S"
    t3 = film.t
    for _ in range(3):  # back over B1, touching it: R changed, not read yet
        film.frame((HandSeen("B", ("B1", "B2"), {"B1": t3}),), unread=("R",))
    for _ in range(6):  # B1 read 5♣, B2 still under the hand, R not read yet
        film.frame((HandSeen("B", ("B2",)),), unread=("R",))
    film.still(8)
    events = _run(film, SpitReferee(rules, state=state))
    assert not _of(events, "illegal_play")  # 5♣ never went to R: the touch there laid 4♠, read once R is
    assert [(e["card"], e["from"], e.t) for e in _of(events, "play")] == [("3D", "B3", 0.333333), ("4S", "B2", tr)]


def test_premature_spit_is_not_called_on_a_move_onto_a_pile_last_read_showing_another_card_than_the_engine_s() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["KD", "AS"], "B": ["7S"]}, spit={"A": "back", "B": "back"},
                               piles={"L": "4H", "R": "8C"})  # B's 7♠ onto 8♣ is the only move
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "KD", "A2": "AS", "B1": "7S", "L": "4H", "R": "8C"})
    film.still(8)
    film.zones["R"] = "AS"  # R read showing what the engine does not have there (a card it has in A2)
    film.still(10)
    film.touch("A", "L", 3, then="9D")  # A's spit card
    film.still(10)
    events = _run(film, SpitReferee(rules, state=state))
    assert not _of(events, "premature_spit")  # whether B could play on R is not what the camera shows


def test_a_tied_card_gone_from_the_pile_to_show_a_rival_s_stock_top_never_seen_lifted_was_taken_back() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["4D", "KS", "5C"], "B": ["4H", "QC"]}, spit={"A": "back", "B": "back"},
                               piles={"L": "6D", "R": "9S"})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "4D", "A2": "KS", "A3": "5C", "B1": "4H", "B2": "QC",
                                                          "L": "6D", "R": "9S"})
    film.still(4)
    film.play("A", "A3", "empty", "L")  # 5♣ on 6♦: L read since
    film.still(4)
    film.touch("B", "B1", 2, then="empty")  # B lifts 4♥
    for _ in range(3):  # A's arm comes over A1: 4♦ is never seen lifted
        film.frame((HandSeen("A", ("A1",)),))
    ta = film.t
    film.frame((HandSeen("A", ("A1", "L"), {"L": ta}),))
    tb = film.t
    for _ in range(3):  # A's 4♦ on L, B's 4♥ a frame later
        film.frame((HandSeen("A", ("A1", "L"), {"L": ta}), HandSeen("B", ("L",), {"L": tb})))
    film.zones["L"] = "4H"
    for _ in range(10):  # 4♥ read on top
        film.frame((HandSeen("A", ("A1",)),))
    film.zones["L"] = "4D"  # B takes 4♥ back, its hand not seen over L
    for _ in range(3):
        film.frame((HandSeen("A", ("A1",)), HandSeen("B", ("B1",))))
    film.zones.update(A1="empty", B1="4H")
    film.still(12)
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("A", "5C", 0.333333), ("A", "4D", ta)]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("B", "4H", tb)]
    assert [(e["first"], e["second"]) for e in _of(events, "race")] == [("A", "B")]




@pytest.mark.parametrize(("laid", "unknown"), [("10D", True), ("4D", False), (None, False)])
def test_a_card_that_came_back_is_not_refused_at_a_touch_after_which_the_pile_showed_a_card_the_engine_has_nowhere(
        laid: str | None, unknown: bool) -> None:
    film, referee = _stuck_after_a_play()  # A1 3H, A2 9C alone on their places
    film.play("A", "A1", "empty", "L")  # 3♥ onto 4♦: nobody can move
    t = film.touch("A", "L", 3, then=laid)  # A's hand on L: laying a card the engine has nowhere (a spit card),
    film.still(6)  # or taking 3♥ back off 4♦ (a card that lay there before the touch), or laying nothing
    _run(film, referee)
    # a card of A's found back in its place is not judged taken back from L at that touch (`_judge_returns`)
    assert referee._unknown_laid("L", "A", t) is unknown
    assert referee._unknown_laid("L", "B", t - 0.1) is False  # another player's contact came between


@pytest.mark.parametrize("laid", ["10D", None])
def test_a_lifted_card_is_not_judged_at_a_touch_after_which_the_pile_showed_a_card_the_engine_has_nowhere(
        laid: str | None) -> None:
    film, referee = _stuck_after_a_play()  # A1 3H, A2 9C alone on their places
    film.touch("A", "A2", 2, then="empty")  # A lifts 9♣
    film.still(4)
    t = film.touch("A", "L", 3, then=laid)  # A's hand on L: laying a card the engine has nowhere, or nothing
    film.still(6)
    assert not _run(film, referee)
    # 9♣ judged at that touch, unseen (as `_earlier` does when A's hand next touches a pile)
    assert referee._attempt("A", parse_card("9C"), "A2", "L", (t, round(t * FPS)), visible=False) is False
    assert not referee._out
    laid_there = ("L", "A", t) in referee._used  # the touch laid 10♦: one hand lays one card
    assert laid_there is (laid is not None) and referee._lifted["9C"].attempted is (laid is not None)
