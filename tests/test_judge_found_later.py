"""Cards found on a pile or a place after the touch that laid them: a touch that laid a card judged laid
no card found later; a card turned under a top played unseen is no stack the rules forbid. Found on the fresh
games AN (fifteenth session); a card read in a face-down place for one frame, then in a space, was turned there
(AO). Each test is named after the rule it checks."""

from __future__ import annotations

from test_judge import LAYOUT, _of, _opened

from referee.events import Event
from referee.observations import HandSeen


def _a_card_laid_over_the_rival_s_within_the_race_window_of_the_own_last_play() -> tuple[list[Event], float, float, float]:
    """A plays 9♥ from A2 on L's 8♦ (its contact dated a frame before its hand is first seen over L); B plays 8♠ from B3 on it five frames later; B's hand comes back over L;
    then A lifts 10♠ from A4 and lays it on the 8♠ with its hand over L, no contact seen. The times of A's
    contact, B's contact and A's hand over L."""
    film = _opened(layout=dict(LAYOUT, A4="10S"))  # L shows 8♦
    film.touch("A", "A2", 2, then="back")
    film.still(4)
    ta = round(film.t - 1 / 30, 6)  # its contact dated a frame before the hand is first seen over L
    for _ in range(3):
        film.frame((HandSeen("A", ("L",), {"L": ta}),))
    film.zones["L"] = "9H"
    film.touch("B", "B3", 2, then="back")
    tb = film.touch("B", "L", 3, then="8S")
    film.still(20)
    film.over("B", "L", 3)  # B's hand back over L, laying nothing
    film.still(6)
    film.touch("A", "A4", 2, then="back")
    film.still(4)
    laid = film.t
    film.over("A", "L", 3)
    film.zones["L"] = "10S"
    film.still(40)
    return film.judge(), ta, tb, laid


def test_a_touch_that_laid_a_card_judged_laid_no_card_found_on_the_pile_later() -> None:
    events, ta, tb, laid = _a_card_laid_over_the_rival_s_within_the_race_window_of_the_own_last_play()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("A", "9H", ta), ("B", "8S", tb)]
    assert [(e["player"], e["card"], e["reason"]) for e in _of(events, "illegal_play")] == \
        [("A", "10S", "10♠ is not next to 8♠")]


def _a_top_played_unseen_and_the_card_under_it_turned() -> list[Event]:
    """A plays 9♥ from A2 on L's 8♦ (A2 face down); A's arm then lifts 2♠ from A4 unseen (A4 read showing it
    in one frame of the arm's cover) and lays it on R's 3♣, R left unread; its arm stays over A4; A's hand, still
    over A4, touches A2 and stays over it (but for a frame, A2 read face down); A4 shows J♥ (turned on the card
    under the 2♠) while R is still unread; then R shows the 2♠, and A2 the Q♣ turned there once the hand has gone."""
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A2", "back", "L")
    for _ in range(3):
        film.frame((HandSeen("A", ("A4",)),))
    film.frame((HandSeen("A", ("A3",)),))  # A4 shows its 2♠ for a frame, the hand's cover going on
    t = film.t
    for _ in range(3):
        film.frame((HandSeen("A", ("A4", "R"), {"R": t}),), unread=("R",))
    for _ in range(40):  # the arm stays over A4 (longer than a hand reaches for a card)
        film.frame((HandSeen("A", ("A4",)),), unread=("R",))
    t = film.t
    for _ in range(3):
        film.frame((HandSeen("A", ("A4", "A2"), {"A2": t}),), unread=("R",))
    film.zones["A4"] = "JH"
    film.frame((HandSeen("A", ()),), unread=("R",))  # A2 read face down for a frame
    for _ in range(20):
        film.frame((HandSeen("A", ("A2",)),), unread=("R",))
    film.zones["R"] = "2S"
    for _ in range(6):
        film.frame((HandSeen("A", ("A2",)),))
    film.zones["A2"] = "QC"
    film.still(40)
    return film.judge()


def test_an_unknown_card_on_a_face_up_stock_top_is_no_stack_of_a_card_turned_elsewhere_the_rules_forbid() -> None:
    events = _a_top_played_unseen_and_the_card_under_it_turned()
    assert not _of(events, "illegal_play")
    assert ("A", "2S", "A4", "R") in [(e["player"], e["card"], e["from"], e["to"]) for e in _of(events, "play")]
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A4", "JH"), ("A2", "QC")]


def _turned_with_no_hand_seen_and_moved() -> tuple[list[Event], float, float]:
    """A plays 7♣ from A1 on L's 8♦ (A1 empty) and 4♣ from A5 on R's 3♣ (A5 face down); A's hand, unseen,
    turns J♠ on A5: A5 is read showing it in one frame only (unread before and after); the hand is then seen
    touching A1, which shows the J♠ once it has gone, A5 face down. The times of the read and of the touch."""
    film = _opened(layout=dict(LAYOUT, A5="4C"))  # L shows 8♦, R 3♣
    film.play("A", "A1", "empty", "L")
    film.play("A", "A5", "back", "R")
    for _ in range(4):
        film.frame(unread=("A5",))
    read = film.frame(A5="JS")
    for _ in range(3):
        film.frame(unread=("A5",))
    touched = film.touch("A", "A1", 3, then="JS")
    film.still(40)
    return film.judge(), read, touched


def test_a_card_read_in_a_face_down_place_if_only_for_a_frame_was_turned_there_when_found_in_a_space() -> None:
    events, read, touched = _turned_with_no_hand_seen_and_moved()
    assert [(e["player"], e["pile"], e["card"], e.t) for e in _of(events, "turn_up")] == [("A", "A5", "JS", read)]
    assert [(e["player"], e["card"], e["from"], e["to"], e.t) for e in _of(events, "move_to_space")] \
        == [("A", "JS", "A5", "A1", touched)]
    assert not _of(events, "resync")
