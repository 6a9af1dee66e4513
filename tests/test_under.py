"""A card read under a spit pile's top: the reading's format, the truth reader's rule, the tracker's
settling and the referee's rule (`TableMoves._laid_under`)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from test_judge import _of, _opened
from test_judge_covered import _over
from test_observe import BrightBlobDetector

from referee.observations import BadObservation, HandSeen, Observation, ZoneReading
from referee.render.truth import INDEX_SHOWN, index_shown
from referee.synth import CardPlacement
from referee.tracker import Tracker, TrackerConfig
from referee.vision.detections import DetectedCard, Detections
from referee.vision.detector import NO_INDEX, RANK_CLASSES, SUIT_CLASSES
from referee.vision.observe import DetectorReader
from referee.vision.under import lower_corners


def test_a_zone_reading_with_a_card_under_its_top_round_trips_and_older_readings_load_unchanged() -> None:
    obs = Observation.from_json('{"t": 0.5, "frame": 15, "zones": {"R": {"seen": "4D", "under": "3H"}, "L": "7C"}}')
    assert obs.zones["R"].under == "3H" and obs.zones["L"].under is None
    assert Observation.from_json(obs.to_json()) == obs
    assert ZoneReading("7C").to_dict() == "7C"
    with pytest.raises(BadObservation):
        ZoneReading("4D", under="3X")
    with pytest.raises(BadObservation):
        ZoneReading("back", under="3H")  # a card under a face-down top is not read


def test_the_truth_reader_reads_a_card_under_the_top_only_where_one_of_its_index_corners_shows() -> None:
    under = CardPlacement("3H", 0.0, 0.0, 0.0, 0, 0.0, "R")
    assert index_shown(under, [CardPlacement("4D", 0.2, 0.1, 3.0, 1, 0.03, "R")]) < INDEX_SHOWN  # squarely covered
    assert index_shown(under, [CardPlacement("4D", 1.2, 0.0, 0.0, 1, 0.03, "R")]) >= INDEX_SHOWN  # shifted: its left index shows
    assert index_shown(under, [CardPlacement("4D", 0.0, 0.0, 90.0, 1, 0.03, "R")]) < INDEX_SHOWN  # across it: the corners hidden
    assert index_shown(under, []) == 1.0


def _track(readings: list[ZoneReading]) -> list[dict[str, str]]:
    tracker = Tracker(TrackerConfig(settle_frames=3))
    return [dict(tracker.update(Observation(i / 30, i, {"R": r})).under) for i, r in enumerate(readings)]


def test_a_card_under_a_top_settles_with_it_and_a_one_frame_misread_of_it_never_settles() -> None:
    under = _track([ZoneReading("4D", under="3H")] * 3 + [ZoneReading("4D", under="9S")] + [ZoneReading("4D", under="3H")] * 2)
    assert under == [{}, {}, {"R": "3H"}, {"R": "3H"}, {"R": "3H"}, {"R": "3H"}]
    misread = _track([ZoneReading("4D")] * 3 + [ZoneReading("4D", under="9S")] + [ZoneReading("4D")] * 3)
    assert all(u == {} for u in misread)
    new_top = _track([ZoneReading("4D", under="3H")] * 3 + [ZoneReading("5C")] * 3)
    assert new_top[-1] == {}  # the card under the old top is no longer read under the new one


def _laid_unseen_then_covered(under: str, frames_read: int, rival_first: bool = False) -> tuple[list, float, float]:
    """A turns 3♥ on A4 under its arm and lays it on R (on 2♠); it is never read there: B's hand
    lays 4♦ from B2 on it at once; R then shows 4♦ with `under` read below it in its first
    `frames_read` frames. With `rival_first`, B's hand touched R before A's (a card may lie under the 3♥ unseen)."""
    film = _opened()  # R shows 3♣
    film.play("A", "A4", "back", "R")  # 2♠ onto 3♣: A4 shows a face-down card
    _over(film, 4, HandSeen("A", ("A4",), {"A4": film.t}))  # A turns 3♥ on A4 (never read there)
    if rival_first:
        _over(film, 2, HandSeen("A", ("A4",), {}), HandSeen("B", ("R",), {"R": film.t}))
    ta = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": ta}))  # and lays it on R, its arm over A4 all along
    arm = HandSeen("A", ("A4",), {})
    _over(film, 1, arm, HandSeen("B", ("B2",), {"B2": film.t}))  # B lifts 4♦
    film.zones["B2"] = "back"
    tb = film.t
    _over(film, 3, arm, HandSeen("B", ("B2", "R"), {"R": tb}))  # and lays it on R
    film.zones["R"] = "4D"
    first = len(film.frames)
    _over(film, 6, arm)
    film.still(40)  # the arm leaves: A4 shows the next face-down card
    for i in range(first, first + frames_read):
        obs = film.frames[i]
        film.frames[i] = Observation(obs.t, obs.frame, dict(obs.zones, R=ZoneReading("4D", under=under)), obs.hands)
    return film.judge(), ta, tb


def test_a_card_read_under_a_new_top_that_the_engine_lacks_there_was_laid_before_it() -> None:
    events, ta, tb = _laid_unseen_then_covered("3H", 40)
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A4", "3H")]
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-2:] == \
        [("A", "3H", "A4", ta), ("B", "4D", "B2", tb)]
    assert not _of(events, "illegal_play")


def test_a_card_read_under_a_top_in_one_frame_only_makes_no_event() -> None:
    events, _, _ = _laid_unseen_then_covered("3H", 1)
    assert not [e for e in _of(events, "play") if e["card"] == "3H"]
    assert not _of(events, "turn_up")


def test_a_card_read_under_a_top_that_would_be_refused_on_the_engine_s_top_makes_no_call() -> None:
    events, _, _ = _laid_unseen_then_covered("9H", 40)  # 9♥ is not next to 2♠: no play, and no call against A
    assert not [e for e in events if e.type in ("play", "turn_up", "illegal_play") and e.get("card") == "9H"]


def _pile(lower_at: tuple[float, float], degrees: float = 6.0) -> tuple[np.ndarray, np.ndarray]:
    """A pile view: grey table, a lower white card (100 x 140 px, dark border) with its top-left at
    `lower_at`, turned by `degrees`, and an upright top card on it; the image and the top card's quad."""
    image = np.full((260, 220, 3), 150, np.uint8)
    angle = np.radians(degrees)
    across, down = np.array([np.cos(angle), np.sin(angle)]) * 100, np.array([-np.sin(angle), np.cos(angle)]) * 140
    corner = np.array(lower_at)
    lower = np.array([corner, corner + across, corner + across + down, corner + down])
    top = np.array([[60, 70], [160, 70], [160, 210], [60, 210]], np.float32)
    for quad in (lower, top):
        cv2.fillConvexPoly(image, np.round(quad).astype(np.int32), (245, 245, 245))
        cv2.polylines(image, [np.round(quad).astype(np.int32)], True, (90, 90, 90), 1)
    return image, top


def test_a_lower_card_s_index_corner_outside_the_top_is_found_where_it_shows() -> None:
    image, top = _pile((30.0, 40.0))  # the lower card's top-left corner shows above and left of the top
    shown = [c for c in lower_corners(image, top) if c.shown >= 0.8 and c.edged >= 0.8]
    assert any(np.linalg.norm(c.quad[0] - (30, 40)) < 4 for c in shown)
    image, top = _pile((60.0, 70.0), 0.0)  # the lower card lies wholly under the top
    assert lower_corners(image, top) == []
    assert lower_corners(np.full((260, 220, 3), 150, np.uint8), top) == []  # no card stands out


class IndexReadingDetector(BrightBlobDetector):
    """The top card (`top`, an upright 7♣ at a known quad) as the box detector would return it, and
    every index crop read as `code` at probability `sure` (P(none) 1 - `sure`)."""

    def __init__(self, top: np.ndarray, code: str, sure: float) -> None:
        super().__init__()
        self.top, self.code, self.sure = top, code, sure

    def detect(self, image: np.ndarray) -> Detections:
        quad = tuple((float(x), float(y)) for x, y in self.top)
        x1, y1 = self.top.min(axis=0)
        x2, y2 = self.top.max(axis=0)
        return Detections((DetectedCard("7C", 0.99, (float(x1), float(y1), float(x2), float(y2)), quad),),  # type: ignore[arg-type]
                          image.shape[1], image.shape[0])

    def read_crops(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rank = np.zeros((len(crops), len(RANK_CLASSES)), np.float32)
        rank[:, RANK_CLASSES.index(NO_INDEX)] = 1.0 - self.sure
        rank[:, RANK_CLASSES.index(self.code[:-1])] = self.sure
        suit = np.zeros((len(crops), len(SUIT_CLASSES)), np.float32)
        suit[:, SUIT_CLASSES.index(self.code[-1])] = 1.0
        return rank, suit


def test_the_detector_reader_reads_the_card_under_a_spit_pile_s_top_only_where_its_index_shows_and_reads_surely() -> None:
    image, top = _pile((30.0, 40.0))
    reader = DetectorReader(IndexReadingDetector(top, "3H", 0.99))  # type: ignore[arg-type]
    assert reader._read_under(image, top, "7C") == "3H"
    assert reader._read_under(image, top, "3H") is None  # the top's own code is never the card under it
    unsure = DetectorReader(IndexReadingDetector(top, "3H", 0.9))  # type: ignore[arg-type]
    assert unsure._read_under(image, top, "7C") is None
    hidden, _ = _pile((60.0, 70.0), 0.0)
    assert reader._read_under(hidden, top, "7C") is None


def test_a_card_read_under_a_top_is_not_laid_after_a_contact_with_the_pile_that_nothing_explains() -> None:
    events, _, _ = _laid_unseen_then_covered("3H", 40, rival_first=True)  # the 3♥ may lie on a card of B's unseen
    assert not [e for e in events if e.type in ("play", "turn_up") and e.get("card") == "3H"]
