"""The detector's training data and runs: labels from synthetic JSON and real VOC boxes (no torch needed), and short training runs where the [train] extra is installed."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.synth.dataset import SynthConfig, generate_dataset
from referee.train.detector import (
    BadTrainingSetup, DetectorConfig, build_dataset, pack_dataset, validate_detector, write_real_labels,
)
from referee.train.indexnet import IndexConfig, real_samples, zone_card_crops, zone_samples
from referee.train.zoneviews import PlacedCard, write_zone_views, zone_mosaic, zone_view
from referee.vision.detections import DetectedCard, Detections
from referee.vision.detector import INDEX_MODEL, NO_INDEX, RANK_CLASSES, SUIT_CLASSES
from referee.vision.evaluate import seen_enough
from referee.vision.realset import LabelledCard, LabelledPhoto, load_photos

TRAIN_EXTRA = "training needs the [train] extra (torch, ultralytics, onnx), which CI does not install"


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("synth")
    list(generate_dataset(out, 3, SynthConfig(seed=5, val_fraction=0.34)))
    return out


def test_oriented_labels_come_from_the_json_truth(synth: Path, tmp_path: Path) -> None:
    yaml = build_dataset(DetectorConfig(run_dir=tmp_path, synth_dir=synth, real_dir=None))
    text = yaml.read_text()
    assert "names:\n  0: card\n  1: back\n" in text
    train = (tmp_path / "dataset" / "train.txt").read_text().split()
    val = (tmp_path / "dataset" / "val.txt").read_text().split()
    assert len(train) + len(val) == 3 and val
    for split, image in [("train", i) for i in train] + [("val", i) for i in val]:
        label = Path(image.replace("/images/", "/labels/")).with_suffix(".txt")
        note = json.loads((synth / "annotations" / split / (Path(image).stem + ".json")).read_text())
        wanted = [c for c in note["cards"] if seen_enough(c)]
        rows = [line.split() for line in label.read_text().splitlines()]
        assert len(rows) == len(wanted)
        for row, card in zip(rows, wanted):
            assert int(row[0]) == (1 if card["card"] == "back" else 0)
            values = np.array(row[1:], dtype=float)
            assert values.shape == (8,) and (0 <= values).all() and (values <= 1).all()


def test_real_photos_get_one_oriented_box_per_card(tmp_path: Path) -> None:
    image = np.full((300, 400, 3), 40, np.uint8)
    card = cv2.boxPoints(((200, 150), (90, 126), 20)).astype(np.int32)
    cv2.fillConvexPoly(image, card, (245, 245, 245))
    source = tmp_path / "photo.jpg"
    cv2.imwrite(str(source), image)
    x1, y1 = card.min(axis=0)
    x2, y2 = card.max(axis=0)
    photo = LabelledPhoto(source, (LabelledCard("Q", (float(x1), float(y1), float(x2), float(y2))),))
    written = write_real_labels([photo], tmp_path / "out")
    rows = (tmp_path / "out" / "labels" / "photo.txt").read_text().split()
    assert written[0].exists() and rows[0] == "0" and len(rows) == 9
    corners = np.array(rows[1:], dtype=float).reshape(4, 2) * (400, 300)
    # the outline was found: its corners are the card's, not the axis-aligned box's
    assert min(np.linalg.norm(card - p, axis=1).min() for p in corners) < 6
    assert max(np.linalg.norm(card - p, axis=1).min() for p in corners) < 6


def test_bad_setups_are_refused(tmp_path: Path) -> None:
    with pytest.raises(BadTrainingSetup):
        DetectorConfig(run_dir=tmp_path, synth_dir=None, real_dir=None)
    with pytest.raises(BadTrainingSetup):
        DetectorConfig(run_dir=tmp_path, synth_dir=tmp_path, real_dir=None, imgsz=300)
    with pytest.raises(BadTrainingSetup):
        build_dataset(DetectorConfig(run_dir=tmp_path, synth_dir=tmp_path / "nothing", real_dir=None))
    with pytest.raises(BadTrainingSetup):
        DetectorConfig(run_dir=tmp_path, synth_dir=tmp_path, real_dir=None, lr0=0.0)


def test_a_run_given_another_synthetic_set_trains_on_that_set_only(synth: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    list(generate_dataset(other, 2, SynthConfig(seed=6, val_fraction=0.5)))
    run = tmp_path / "run"
    build_dataset(DetectorConfig(run_dir=run, synth_dir=synth, real_dir=None, zone_views=1))
    build_dataset(DetectorConfig(run_dir=run, synth_dir=other, real_dir=None, zone_views=1))
    train = (run / "dataset" / "train.txt").read_text().split()
    assert len(train) == 2  # one image and its zone view, none left from the first set
    image = Path(train[0])
    assert image.resolve().parent == (other / "images" / "train").resolve()
    assert len(list((run / "dataset" / "zones-train" / "images").iterdir())) == 1


def test_further_synthetic_sets_are_trained_on_and_only_the_first_is_validated(synth: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    list(generate_dataset(other, 2, SynthConfig(seed=6, val_fraction=0.5)))
    run = tmp_path / "run"
    build_dataset(DetectorConfig(run_dir=run, synth_dir=synth, real_dir=None, more_synth=(other,), zone_views=1))
    train = (run / "dataset" / "train.txt").read_text().split()
    val = (run / "dataset" / "val.txt").read_text().split()
    from_other = [p for p in train if Path(p).resolve().parent == (other / "images" / "train").resolve()]
    first = len(list((synth / "images" / "train").iterdir()))
    assert len(from_other) == 1 and len(train) == 2 * (first + 1)  # each training image and its zone view
    assert all("other" not in p for p in val)


def test_further_synthetic_sets_need_a_first_one_and_distinct_names_for_the_detector(synth: Path, tmp_path: Path) -> None:
    with pytest.raises(BadTrainingSetup):
        DetectorConfig(run_dir=tmp_path, synth_dir=None, real_dir=tmp_path, more_synth=(synth,))
    with pytest.raises(BadTrainingSetup):
        DetectorConfig(run_dir=tmp_path, synth_dir=synth, real_dir=None, more_synth=(tmp_path / synth.name,))


def test_a_packed_data_set_keeps_each_image_once_shrunk_to_the_training_size_with_its_labels(synth: Path, tmp_path: Path) -> None:
    photo = tmp_path / "real" / "images" / "photo.jpg"
    photo.parent.mkdir(parents=True)
    cv2.imwrite(str(photo), np.full((900, 1200, 3), 200, np.uint8))
    (tmp_path / "real" / "labels").mkdir()
    (tmp_path / "real" / "labels" / "photo.txt").write_text("0 0.1 0.1 0.4 0.1 0.4 0.5 0.1 0.5\n")
    source = tmp_path / "built"
    source.mkdir()
    (source / "data.yaml").write_text("path: x\ntrain: train.txt\nval: val.txt\n")
    (source / "train.txt").write_text(f"{photo}\n{photo}\n")  # a real photo repeated, as real_repeats lists it
    (source / "val.txt").write_text("")
    yaml = pack_dataset(source / "data.yaml", tmp_path / "packed", 320)
    train = (tmp_path / "packed" / "train.txt").read_text().split()
    assert train == ["./images/000000.webp"] * 2 and "path:" not in yaml.read_text()
    packed = cv2.imread(str(tmp_path / "packed" / "images" / "000000.webp"))
    assert packed.shape == (240, 320, 3)
    assert (tmp_path / "packed" / "labels" / "000000.txt").read_text() == (tmp_path / "real" / "labels" / "photo.txt").read_text()
    with pytest.raises(BadTrainingSetup):
        pack_dataset(tmp_path / "none.yaml", tmp_path / "packed2", 320)


def test_val_measures_a_detector_on_the_synthetic_val_split_alone(synth: Path, tmp_path: Path) -> None:
    YOLO = pytest.importorskip("ultralytics", reason=TRAIN_EXTRA).YOLO

    from referee.train.environment import prepare

    prepare(tmp_path)
    checkpoint = tmp_path / "best.pt"
    YOLO("yolo11n-obb.yaml").save(checkpoint)  # untrained: finds nothing
    figures = validate_detector(checkpoint, synth, tmp_path / "val", 128)
    assert set(figures) == {"mAP50", "mAP50-95", "mAP50 card", "mAP50 back"}
    assert all(0.0 <= v <= 1.0 for v in figures.values())
    listed = (tmp_path / "val" / "val.txt").read_text().split()
    assert listed and all(Path(p).resolve().parent == (synth / "images" / "val").resolve() for p in listed)
    with pytest.raises(BadTrainingSetup):
        validate_detector(tmp_path / "none.pt", synth, tmp_path / "val", 128)


def test_real_split_of_the_shared_photos(shared_dir: Path) -> None:
    folder = shared_dir / "data" / "real-pinochle" / "train"
    train, holdout = load_photos(folder, "train"), load_photos(folder, "holdout")
    assert len(train) + len(holdout) == 296 and 110 <= len(holdout) <= 130
    assert not {p.path for p in train} & {p.path for p in holdout}
    assert sum(len(p.cards) for p in train + holdout) == 527


def _one_card_scene() -> tuple[np.ndarray, dict]:
    """A 640x480 image of a dark table seen straight down at 10 px/cm, one white card at table (5, 3) cm."""
    homography = np.array([[10.0, 0, 320], [0, -10.0, 240], [0, 0, 1]])
    card_cm = cv2.boxPoints(((5.0, 3.0), (6.3, 8.8), 10.0))
    corners = cv2.perspectiveTransform(card_cm.reshape(-1, 1, 2).astype(np.float64), homography).reshape(-1, 2)
    image = np.full((480, 640, 3), 50, np.uint8)
    cv2.fillConvexPoly(image, np.round(corners).astype(np.int32), (240, 240, 240))
    note = {"camera": {"homography": homography.tolist()},
            "cards": [{"card": "7H", "corners": corners.tolist(), "visible": 1.0, "index_visible": [True, True],
                       "z": 0, "zone": "L"}]}
    return image, note


def test_zone_views_label_the_card_where_the_tiled_pile_shows_it() -> None:
    image, note = _one_card_scene()
    for seed in range(5):
        mosaic, labels = zone_view(image, note, np.random.default_rng(seed))
        assert len(labels) == 1 and labels[0][0] == 0
        quad = labels[0][1]
        inside = np.zeros(mosaic.shape[:2], np.uint8)
        cv2.fillConvexPoly(inside, np.round(quad).astype(np.int32), 1)
        assert mosaic[inside == 1].mean() > 200  # the label lies on the white card
        short = min(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1]))
        assert 6 * 6.3 - 2 <= short <= 16 * 6.3 + 2  # drawn at 6-16 px/cm


def test_zone_views_need_a_pile_and_are_the_same_for_a_seed(synth: Path, tmp_path: Path) -> None:
    image, note = _one_card_scene()
    note["cards"][0]["zone"] = None
    assert zone_view(image, note, np.random.default_rng(0)) is None
    first = write_zone_views(synth, "train", tmp_path / "a", 2.0, seed=3)
    second = write_zone_views(synth, "train", tmp_path / "b", 2.0, seed=3)
    assert first and [p.name for p in first] == [p.name for p in second]
    for a, b in zip(first, second):
        assert (a.parent.parent / "labels" / f"{a.stem}.txt").read_text() == \
            (b.parent.parent / "labels" / f"{b.stem}.txt").read_text()


SEVEN_OF_HEARTS = (RANK_CLASSES.index("7"), SUIT_CLASSES.index("H"))
NO_INDEX_LABEL = (RANK_CLASSES.index(NO_INDEX), -1)


def test_zone_index_crops_are_cut_where_the_reader_would_cut_them() -> None:
    image, note = _one_card_scene()
    for seed in range(3):
        mosaic, placed = zone_mosaic(image, note, np.random.default_rng(seed))
        assert len(placed) == 1 and placed[0].inside_share() > 0.99
        crops, labels = zone_card_crops(mosaic, placed[0], np.random.default_rng(seed), jitter_copies=2)
        # the true outline, two jittered boxes and the outline the detector finds inside each box
        assert crops.shape == (2 * 5, 56, 32, 3) and len(labels) == 10
        assert labels == [SEVEN_OF_HEARTS] * 10
        assert crops[:2].mean() > 200  # the true outline's corners lie on the white card


def test_zone_index_corners_outside_their_tile_or_hidden_read_none() -> None:
    image, note = _one_card_scene()
    note["cards"][0]["index_visible"] = [True, False]
    mosaic, placed = zone_mosaic(image, note, np.random.default_rng(0))
    _, labels = zone_card_crops(mosaic, placed[0], np.random.default_rng(0), jitter_copies=0)
    assert sorted(labels) == sorted([SEVEN_OF_HEARTS, NO_INDEX_LABEL])

    note["cards"][0]["index_visible"] = [True, True]
    item = placed[0]
    rightmost = int(np.argmax(item.quad[:, 0]))
    assert rightmost in (0, 2)  # this card's right-most corner is an index corner
    x, y, _, height = item.tile
    narrow = PlacedCard(item.card, item.quad, (x, y, int(item.quad[rightmost, 0]) - 3, height))
    _, labels = zone_card_crops(mosaic, narrow, np.random.default_rng(0), jitter_copies=0)
    assert sorted(labels) == sorted([SEVEN_OF_HEARTS, NO_INDEX_LABEL])


def test_zone_index_samples_are_the_same_for_a_seed(synth: Path, tmp_path: Path) -> None:
    config = IndexConfig(run_dir=tmp_path, synth_dir=synth, real_dir=None, zone_views=1.0)
    first = zone_samples(synth, "train", config, 2.0)
    second = zone_samples(synth, "train", config, 2.0)
    assert len(first.ranks) and first.crops.shape[1:] == (56, 32, 3)
    assert np.array_equal(first.crops, second.crops) and np.array_equal(first.ranks, second.ranks)
    assert ((first.suits >= 0) == (first.ranks != RANK_CLASSES.index(NO_INDEX))).all()
    with pytest.raises(BadTrainingSetup):
        IndexConfig(run_dir=tmp_path, synth_dir=None, real_dir=tmp_path, zone_views=1.0)


def test_export_writes_the_models_the_run_trained_and_refuses_an_empty_run(synth: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch", reason=TRAIN_EXTRA)
    from referee.cli import main
    from referee.train.indexnet import train_index_classifier

    run, models = tmp_path / "index-only", tmp_path / "models"
    train_index_classifier(IndexConfig(run_dir=run, synth_dir=synth, real_dir=None, epochs=1, batch=64))
    assert main(["train", "export", "--run", str(run), "--models", str(models)]) == 0
    assert [p.name for p in models.iterdir()] == [INDEX_MODEL]  # the detector's file is not touched
    assert main(["train", "export", "--run", str(tmp_path / "empty"), "--models", str(models)]) == 2


def test_an_8_bit_export_reads_crops_as_the_float_classifier_does(synth: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch", reason=TRAIN_EXTRA)
    onnx = pytest.importorskip("onnx", reason=TRAIN_EXTRA)
    import onnxruntime as ort

    from referee.cli import main
    from referee.train.indexnet import train_index_classifier

    run = tmp_path / "index-only"
    train_index_classifier(IndexConfig(run_dir=run, synth_dir=synth, real_dir=None, epochs=1, batch=64))
    for folder, extra in (("float", []), ("int8", ["--int8"])):
        assert main(["train", "export", "--run", str(run), "--models", str(tmp_path / folder), *extra]) == 0
    crops = np.load(run / "index-samples.npz")["val_crops"].transpose(0, 3, 1, 2).astype(np.float32) / 255.0
    reads = {}
    for folder in ("float", "int8"):
        session = ort.InferenceSession(str(tmp_path / folder / INDEX_MODEL), providers=["CPUExecutionProvider"])
        assert [o.name for o in session.get_outputs()] == ["rank", "suit"]
        reads[folder] = session.run(None, {"crops": crops})
    assert any(node.op_type == "QuantizeLinear" for node in onnx.load(tmp_path / "int8" / INDEX_MODEL).graph.node)
    for float_probs, int8_probs in zip(reads["float"], reads["int8"]):
        assert np.allclose(int8_probs.sum(axis=1), 1.0, atol=1e-4)
        assert (float_probs.argmax(axis=1) == int8_probs.argmax(axis=1)).mean() >= 0.9
    (run / "index-samples.npz").unlink()  # nothing to calibrate on
    assert main(["train", "export", "--run", str(run), "--models", str(tmp_path / "int8"), "--int8"]) == 2


def test_a_further_synthetic_set_is_cut_into_caches_of_its_own_and_validated_too(synth: Path, tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason=TRAIN_EXTRA)

    from referee.train.indexnet import train_index_classifier

    other = tmp_path / "later"
    list(generate_dataset(other, 2, SynthConfig(seed=6, val_fraction=0.5)))
    run = tmp_path / "run"
    checkpoint = train_index_classifier(IndexConfig(run_dir=run, synth_dir=synth, real_dir=None, epochs=1, batch=64,
                                                    zone_views=1, more_data=(other,)))
    caches = sorted(p.name for p in run.glob("*.npz"))
    assert caches == ["index-samples-later.npz", "index-samples.npz", "index-zone-samples-1.npz", "index-zone-samples-later-1.npz"]
    scores = torch.load(checkpoint, map_location="cpu", weights_only=False)["val"]
    assert {"synthetic", "synthetic later"} <= set(scores)
    with np.load(run / "index-samples-later.npz") as later, np.load(run / "index-samples.npz") as first:
        assert len(later["train_ranks"]) > 0 and len(first["train_ranks"]) > 0


def test_an_index_run_starts_a_new_schedule_from_the_classifier_it_is_given(synth: Path, tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason=TRAIN_EXTRA)

    from referee.train.indexnet import _network, train_index_classifier

    model = _network()
    with torch.no_grad():
        model.rank.bias[RANK_CLASSES.index("A")] = 100.0  # a classifier that reads every crop as an ace
    torch.save({"model": model.state_dict(), "epochs": 1}, tmp_path / "given.pt")
    checkpoint = train_index_classifier(IndexConfig(run_dir=tmp_path / "run", synth_dir=synth, real_dir=None, epochs=1,
                                                    batch=64, init_weights=tmp_path / "given.pt"))
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    assert state["epoch"] == 1 and float(state["model"]["rank.bias"][RANK_CLASSES.index("A")]) > 50.0
    with pytest.raises(BadTrainingSetup):
        IndexConfig(run_dir=tmp_path, synth_dir=synth, real_dir=None, init_weights=tmp_path / "missing.pt")


def test_further_synthetic_sets_need_a_first_one_and_distinct_names(tmp_path: Path) -> None:
    with pytest.raises(BadTrainingSetup):
        IndexConfig(run_dir=tmp_path, synth_dir=None, real_dir=tmp_path, more_data=(tmp_path / "a",))
    with pytest.raises(BadTrainingSetup):
        IndexConfig(run_dir=tmp_path, synth_dir=tmp_path, real_dir=None, more_data=(tmp_path / "x" / "a", tmp_path / "y" / "a"))


class _Finder:
    """Stands for `CardDetector` on one photo: finds one card at `corners`; its reader sees an index in the first `seen` crops."""

    def __init__(self, corners: np.ndarray, seen: int) -> None:
        self.corners, self.seen = corners, seen

    def detect(self, image: np.ndarray) -> Detections:
        (x1, y1), (x2, y2) = self.corners.min(axis=0), self.corners.max(axis=0)
        corners = tuple((float(x), float(y)) for x, y in self.corners)
        return Detections((DetectedCard("JS", 0.9, (float(x1), float(y1), float(x2), float(y2)), corners),), image.shape[1], image.shape[0])

    def read_crops(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rank = np.zeros((len(crops), len(RANK_CLASSES)))
        rank[:, RANK_CLASSES.index(NO_INDEX)] = 0.9
        rank[: self.seen, RANK_CLASSES.index(NO_INDEX)] = 0.1
        rank[:, RANK_CLASSES.index("J")] += 1.0 - rank[:, RANK_CLASSES.index(NO_INDEX)]
        return rank, np.full((len(crops), len(SUIT_CLASSES)), 1.0 / len(SUIT_CLASSES))


def _voc_photo(folder: Path, image: np.ndarray, cards: list[tuple[str, np.ndarray]]) -> None:
    """One photo of a VOC folder (`realset.load_photos`): its image and each card's word and corners as a box."""
    folder.mkdir(exist_ok=True)
    cv2.imwrite(str(folder / "photo.jpg"), image)
    objects = "".join(
        f"<object><name>{word}</name><bndbox><xmin>{c[:, 0].min()}</xmin><ymin>{c[:, 1].min()}</ymin>"
        f"<xmax>{c[:, 0].max()}</xmax><ymax>{c[:, 1].max()}</ymax></bndbox></object>" for word, c in cards)
    (folder / "photo.xml").write_text(f"<annotation>{objects}</annotation>")


def test_real_court_cards_give_their_crops_as_often_as_asked(tmp_path: Path) -> None:
    image = np.full((300, 400, 3), 40, np.uint8)
    king, nine = (cv2.boxPoints((centre, (90, 126), 10)).astype(np.float32) for centre in ((100, 150), (300, 150)))
    for corners in (king, nine):
        cv2.fillConvexPoly(image, corners.astype(np.int32), (245, 245, 245))
    _voc_photo(tmp_path / "real", image, [("king", king), ("nine", nine)])
    samples = real_samples(tmp_path / "real", IndexConfig(run_dir=tmp_path, synth_dir=None, real_dir=tmp_path / "real",
                                                          real_repeats=3, court_repeats=2))
    counts = {rank: int((samples.ranks == RANK_CLASSES.index(rank)).sum()) for rank in ("K", "9")}
    assert counts == {"K": 3 * 2 * 2, "9": 3 * 2}  # both corners of each outline, the king's twice as often
    with pytest.raises(BadTrainingSetup):
        IndexConfig(run_dir=tmp_path, synth_dir=None, real_dir=tmp_path, court_repeats=0)


def test_a_real_card_without_an_outline_gives_the_crops_the_detector_reads_as_an_index(tmp_path: Path) -> None:
    folder = tmp_path / "real"
    corners = cv2.boxPoints(((200, 150), (90, 126), 45)).astype(np.float32)
    _voc_photo(folder, np.full((300, 400, 3), 240, np.uint8), [("jack", corners)])  # a card as light as the floor: no outline
    config = IndexConfig(run_dir=tmp_path, synth_dir=None, real_dir=folder, real_repeats=3)
    assert len(real_samples(folder, config).ranks) == 0  # the box alone does not say where the index is
    found = real_samples(folder, config, _Finder(corners, seen=2))
    assert len(found.ranks) == 3 * 2 and (found.ranks == RANK_CLASSES.index("J")).all() and (found.suits == -1).all()
    assert found.crops.shape[1:] == (56, 32, 3)
    assert len(real_samples(folder, config, _Finder(corners, seen=0)).ranks) == 0  # corners maybe under another card


def test_a_real_card_without_an_outline_is_labelled_with_the_oriented_box_the_detector_finds(tmp_path: Path) -> None:
    corners = cv2.boxPoints(((200, 150), (90, 126), 45)).astype(np.float32)
    source = tmp_path / "photo.jpg"
    cv2.imwrite(str(source), np.full((300, 400, 3), 240, np.uint8))  # a card as light as the floor: no outline
    (x1, y1), (x2, y2) = corners.min(axis=0), corners.max(axis=0)
    photo = LabelledPhoto(source, (LabelledCard("J", (float(x1), float(y1), float(x2), float(y2))),))

    def labelled(finder: _Finder | None) -> np.ndarray:
        write_real_labels([photo], tmp_path / "out", finder)
        return np.array((tmp_path / "out" / "labels" / "photo.txt").read_text().split()[1:], dtype=float).reshape(4, 2) * (400, 300)

    square = labelled(None)  # the axis-aligned box stands in: a near-square box no card has
    assert np.ptp(square[:, 0]) == pytest.approx(x2 - x1, abs=1) and np.ptp(square[:, 1]) == pytest.approx(y2 - y1, abs=1)
    card_shaped = labelled(_Finder(corners, seen=2))
    assert max(np.linalg.norm(corners - p, axis=1).min() for p in card_shaped) < 1


def test_an_exported_detector_rebuilt_as_a_checkpoint_computes_what_the_onnx_file_computes(synth: Path, tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    pytest.importorskip("ultralytics")
    import onnxruntime as ort
    torch = pytest.importorskip("torch", reason=TRAIN_EXTRA)

    from referee.train.environment import prepare

    prepare(tmp_path)
    from referee.train.onnxweights import calibration_batch, model_from_onnx
    from referee.vision.detector import DETECTOR_MODEL, MODELS_DIR

    images = calibration_batch(sorted((synth / "images").glob("*/*.jpg")), 320)
    model = model_from_onnx(MODELS_DIR / DETECTOR_MODEL, "yolo11n-obb.yaml", images).eval()
    with torch.no_grad():
        rebuilt = model(images)[0].numpy()
    session = ort.InferenceSession(str(MODELS_DIR / DETECTOR_MODEL), providers=["CPUExecutionProvider"])
    exported = session.run(None, {session.get_inputs()[0].name: images.numpy()})[0]
    assert rebuilt.shape == exported.shape
    assert np.abs(rebuilt[:, :4] - exported[:, :4]).max() < 0.1  # box centres and sizes, in input pixels (float32 sums)
    assert np.abs(rebuilt[:, 4:] - exported[:, 4:]).max() < 1e-3  # class scores and angles


def test_a_file_that_is_not_an_export_of_the_architecture_is_not_rebuilt(synth: Path, tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    pytest.importorskip("ultralytics")
    from referee.train.environment import prepare

    prepare(tmp_path)
    from referee.train.onnxweights import calibration_batch, model_from_onnx
    from referee.vision.detector import INDEX_MODEL, MODELS_DIR

    images = calibration_batch(sorted((synth / "images").glob("*/*.jpg")), 320)
    with pytest.raises(BadTrainingSetup, match="not an export of yolo11n-obb.yaml"):
        model_from_onnx(MODELS_DIR / INDEX_MODEL, "yolo11n-obb.yaml", images)


def test_val_measures_an_exported_detector_given_as_init(synth: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("onnx")
    pytest.importorskip("ultralytics")
    from referee.cli import main
    from referee.vision.detector import DETECTOR_MODEL, MODELS_DIR

    assert main(["train", "val", "--data", str(synth), "--run", str(tmp_path), "--init", str(MODELS_DIR / DETECTOR_MODEL)]) == 0
    figures = capsys.readouterr().out.split("\n")[-2].split()
    assert figures[0] == "mAP50" and 0.0 <= float(figures[1]) <= 1.0
    assert (tmp_path / f"{Path(DETECTOR_MODEL).stem}-rebuilt.pt").is_file()


def _crops(synth: Path) -> np.ndarray:
    from referee.train.indexnet import synth_samples

    config = IndexConfig(run_dir=Path("unused"), synth_dir=synth, real_dir=None)
    return np.concatenate([synth_samples(synth, split, config).crops for split in ("train", "val")])


def _onnx_reads(path: Path, crops: np.ndarray) -> list[np.ndarray]:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {"crops": crops.transpose(0, 3, 1, 2).astype(np.float32) / 255.0})


def _torch_reads(model, crops: np.ndarray) -> list[np.ndarray]:  # noqa: ANN001 (a torch module)
    torch = pytest.importorskip("torch", reason=TRAIN_EXTRA)

    from referee.train.indexnet import _to_tensor

    with torch.no_grad():
        return [logits.softmax(1).numpy() for logits in model.eval()(_to_tensor(crops))]


def test_the_8_bit_index_classifier_rebuilt_reads_crops_as_its_onnx_file_does(synth: Path) -> None:
    """Its weights dequantized, the rebuilt float model differs from the file only by the file's
    8-bit activations: probabilities within a few hundredths, the same class for nearly every crop."""
    pytest.importorskip("onnx")
    from referee.train.onnxweights import index_model_from_onnx
    from referee.vision.detector import MODELS_DIR

    crops = _crops(synth)
    assert len(crops) >= 100
    model = index_model_from_onnx(MODELS_DIR / INDEX_MODEL, crops[::2])
    for exported, rebuilt in zip(_onnx_reads(MODELS_DIR / INDEX_MODEL, crops), _torch_reads(model, crops)):
        assert np.abs(exported - rebuilt).max() < 0.15
        assert np.abs(exported - rebuilt).mean() < 0.01
        assert (exported.argmax(1) == rebuilt.argmax(1)).mean() >= 0.95


def test_a_float_index_classifier_rebuilt_computes_what_its_onnx_file_computes(synth: Path, tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    from referee.train.indexnet import export_index_classifier, train_index_classifier
    from referee.train.onnxweights import index_model_from_onnx

    checkpoint = train_index_classifier(IndexConfig(run_dir=tmp_path / "run", synth_dir=synth, real_dir=None, epochs=1, batch=64))
    exported = export_index_classifier(checkpoint, tmp_path / INDEX_MODEL)
    crops = _crops(synth)
    model = index_model_from_onnx(exported, crops)
    for from_file, rebuilt in zip(_onnx_reads(exported, crops), _torch_reads(model, crops)):
        assert np.abs(from_file - rebuilt).max() < 1e-4


def test_an_index_run_starts_from_an_exported_classifier_and_refuses_other_files(synth: Path, tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    torch = pytest.importorskip("torch", reason=TRAIN_EXTRA)

    from referee.train.indexnet import _network, train_index_classifier
    from referee.train.onnxweights import index_model_from_onnx
    from referee.vision.detector import DETECTOR_MODEL, MODELS_DIR

    run = tmp_path / "run"
    checkpoint = train_index_classifier(IndexConfig(run_dir=run, synth_dir=synth, real_dir=None, epochs=1, batch=64,
                                                    init_weights=MODELS_DIR / INDEX_MODEL))
    trained = _network()
    trained.load_state_dict(torch.load(checkpoint, map_location="cpu", weights_only=False)["model"])
    crops = _crops(synth)
    rank_file = _onnx_reads(MODELS_DIR / INDEX_MODEL, crops)[0].argmax(1)
    assert (_torch_reads(trained, crops)[0].argmax(1) == rank_file).mean() > 0.8  # one short epoch on from the file
    with pytest.raises(BadTrainingSetup, match="not an export of"):
        index_model_from_onnx(MODELS_DIR / DETECTOR_MODEL, crops)
