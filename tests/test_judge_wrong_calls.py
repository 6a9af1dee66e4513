"""Calls against a player that rest on what the camera shows (24 Nov, twelfth session): a refused card
read under another is not laid again, a card read lying on one it fits is not refused on another, a
stacking is not called on a top turned unseen, a card laid after its player's arm hid their face-down
place is not called a premature spit, and a play judged since a re-read can still be undone."""

from __future__ import annotations

from test_judge import STUCK, Film, _of, _opened

from referee.cards import parse_card
from referee.events import Event
from referee.judge.judge import Judge
from referee.observations import HandSeen, Observation, ZoneReading


def _read_under(film: Film, first: int, top: str, under: str) -> None:
    """From frame `first` on, R read showing `top` also shows `under` below it."""
    for i in range(first, len(film.frames)):
        obs = film.frames[i]
        reading = obs.zones.get("R")
        if reading is not None and reading.seen == top:
            film.frames[i] = Observation(obs.t, obs.frame, dict(obs.zones, R=ZoneReading(top, under=under)), obs.hands)


def _refused_then_covered(under_read: bool) -> list[Event]:
    """A lays K♦ from A3 on R (on 3♣: refused) and B lays 4♦ on it a frame later; R shows 4♦ with K♦
    read under it (where `under_read`); A's hand goes back to A3 without the card, then comes for it
    under the 4♦ and takes it home."""
    film = _opened()  # R shows 3♣
    film.touch("B", "B2", 2, then="back")
    film.touch("A", "A3", 2, then="back")
    film.still(4)
    film.touch_both(("A", "R"), ("B", "R"), lag=1)
    film.zones["R"] = "4D"
    first = len(film.frames)
    film.still(8)
    film.touch("A", "A3", 3)  # back at its place, the card still on R
    film.still(4)
    film.touch("A", "R", 4)  # comes for it
    film.still(2)
    film.touch("A", "A3", 3, then="KD")
    film.still(10)
    if under_read:
        _read_under(film, first, "4D", "KD")
    return film.judge()


def test_a_refused_card_read_under_the_card_laid_on_it_is_not_laid_again_by_its_players_next_touch() -> None:
    flags = [(e["player"], e["card"], e["reason"]) for e in _of(_refused_then_covered(under_read=True), "illegal_play")]
    assert flags == [("A", "KD", "K♦ is not next to 3♣")]


def test_without_the_card_read_under_the_top_a_touch_after_its_hand_went_home_lays_it_again() -> None:
    """The rule it rests on (`_lifted_again`): the card back in the hand, too briefly seen home."""
    flags = [e["card"] for e in _of(_refused_then_covered(under_read=False), "illegal_play")]
    assert flags == ["KD", "KD"]


def _judge_to(film: Film) -> Judge:
    judge = Judge("classic", fps=30.0)
    for obs in film.frames:
        judge.feed(obs)
    return judge


def test_a_card_read_lying_on_a_card_it_fits_is_not_refused_on_the_engines_other_top() -> None:
    """`_laid_on_fitting`: the camera reads 4♦ on R with 3♥ under it while the engine has 3♣ there."""
    referee = _judge_to(_opened()).referee  # R: 3♣
    four = parse_card("4D")
    referee._settled, referee._under_seen = {"R": "4D"}, {"R": "3H"}
    assert referee._laid_on_fitting("R", four)  # 4♦ fits on the 3♥ read under it
    referee._under_seen = {"R": "9S"}
    assert not referee._laid_on_fitting("R", four)  # it would be refused on the card read under it too
    referee._settled, referee._under_seen = {"R": "5D"}, {"R": "3H"}
    assert not referee._laid_on_fitting("R", four)  # the card read under is another top's


def _stacked_on_a_top(forget_read: bool) -> list[Event]:
    """A plays 7♠ from A5 (A5 then shows a face-down card), turns up 8♥ there, then lays A1's 2♠ on it:
    stacking, refused in the classic rules. With `forget_read` the 8♥ counts as never read in a stock
    place (as a card the referee found turned unseen)."""
    film = _opened(spit_l="6D", spit_r="6C", layout=dict(STUCK, A5="7S"))
    film.play("A", "A5", "back", "L")
    film.touch("A", "A5", 3, then="8H")
    film.still(8)
    split = len(film.frames)
    film.touch("A", "A1", 2, then="empty")
    film.still(3)
    film.touch("A", "A5", 3, then="2S")
    film.still(10)
    judge = Judge("classic", fps=30.0)
    events = [event for obs in film.frames[:split] for event in judge.feed(obs)]
    if forget_read:
        judge.referee._stock_read.discard("8H")
    return events + [event for obs in film.frames[split:] for event in judge.feed(obs)]


def test_a_stacking_is_not_called_on_a_top_never_read_in_a_stock_place() -> None:
    assert [e["card"] for e in _of(_stacked_on_a_top(forget_read=False), "illegal_play")] == ["2S"]
    assert _of(_stacked_on_a_top(forget_read=True), "illegal_play") == []


def _laid_after_the_arm(arm_frames: int) -> list[Event]:
    """A plays 7♠ from A5 onto 6♦ (A5 then shows a face-down card; turning it is the only move on the
    table), their arm lies over A5 for `arm_frames` frames (no contact seen), and then lays J♣, a card
    the engine has nowhere, on L."""
    film = _opened(spit_l="6D", spit_r="6C", layout=dict(STUCK, A5="7S"))
    film.play("A", "A5", "back", "L")
    film.still(10)
    for _ in range(arm_frames):
        film.frame((HandSeen("A", ("A5",)),))
    film.still(3 if arm_frames else 23)
    film.touch("A", "L", 3, then="JC")
    film.still(20)
    return film.judge()


def test_a_card_laid_after_its_players_arm_hid_their_face_down_place_is_no_premature_spit() -> None:
    """`_turned_under_arm`: the hand may have turned the top there and taken it, the card under it
    face down looking the same, so the card laid may be the one turned."""
    assert _of(_laid_after_the_arm(20), "premature_spit") == []
    called = _of(_laid_after_the_arm(0), "premature_spit")
    assert [(e["player"], e["move"]) for e in called] == [("A", "A turns up the top of A5")]


def test_the_last_play_on_a_pile_is_found_among_the_moves_judged_since_a_re_read() -> None:
    """`_last_play_on` and `_found`: a re-read clears the history, not the moves remembered; the play
    judged after it is found (the two lists aligned at their ends), so it can still be undone."""
    film = _opened()  # R: 3♣
    film.frame(B5="KH")  # B5 shows a card no move explains: read again after `RESYNC_S`
    for _ in range(80):
        film.frame(B5="KH")
    film.zones["B5"] = "KH"
    film.play("A", "A4", "back", "R")  # 2♠ onto 3♣
    judge = _judge_to(film)
    referee = judge.referee
    assert referee.resyncs == 1 and len(referee._made) > len(referee._history)
    index = referee._last_play_on("R")
    assert index is not None and referee._found(index)[1].card.code == "2S"


def _arm_over_a4_after_a_lift(touched_pile: bool) -> tuple[bool, bool]:
    """A lifts K♦ from A3 (their hand touching L afterwards, where `touched_pile`); A4, whose 2♠ plays on
    R, is read clear for a second, then their arm comes over it: whether a touch on R may have laid
    the 2♠ instead of the K♦ (`_other_card_hidden`), before and after the arm came."""
    film = _opened()  # R: 3♣
    film.touch("A", "A3", 2, then="back")  # K♦ lifted
    film.still(4)
    if touched_pile:
        film.touch("A", "L", 3)
    film.still(30)  # A4 read clear all along
    before = _judge_to(film).referee._other_card_hidden("A", "A3", "R", film.t)
    for _ in range(4):
        film.frame((HandSeen("A", ("A4",)),))
    return before, _judge_to(film).referee._other_card_hidden("A", "A3", "R", film.t)


def test_a_place_its_players_arm_came_over_after_a_touch_on_a_pile_may_have_given_the_card_laid() -> None:
    """The hand went to a spit pile since the lift (it may have laid the K♦ there): a card of a place
    it came over since that place was last read clear may be the one a later touch laid."""
    assert _arm_over_a4_after_a_lift(touched_pile=True) == (False, True)
    assert _arm_over_a4_after_a_lift(touched_pile=False) == (False, False)  # an arm passing over A4 with the K♦
