"""Seeded samples and the `referee synth-data` command: layout, determinism, resuming, errors."""

import json
from pathlib import Path

import pytest
from PIL import Image

from referee.cli import main
from referee.synth.annotation import Annotation
from referee.synth.dataset import SynthConfig, generate_dataset, generate_sample, split_of
from referee.synth.labels import yolo_text


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_same_sample():
    config = SynthConfig(seed=7)
    a, b = generate_sample(3, config), generate_sample(3, config)
    assert a.jpeg == b.jpeg and a.annotation == b.annotation
    other = generate_sample(4, config)
    assert other.jpeg != a.jpeg


def test_split_is_even():
    splits = [split_of(i, 0.2) for i in range(50)]
    assert splits.count("val") == 10
    assert all(split_of(i, 0.0) == "train" for i in range(50))


def test_cli_writes_the_layout_and_resumes(tmp_path: Path, capsys):
    out = tmp_path / "ds"
    args = ["synth-data", "--out", str(out), "--images", "3", "--seed", "11", "--val-fraction", "0.34",
            "--no-progress"]
    assert main(args) == 0
    yaml = (out / "data.yaml").read_text()
    assert f"path: {out.resolve()}" in yaml and "train: images/train" in yaml and "1: back" in yaml
    first = _files(out)
    for i in range(3):
        split = split_of(i, 0.34)
        ann = json.loads(first[f"annotations/{split}/{i:06d}.json"])
        assert ann["image"]["file"] == f"images/{split}/{i:06d}.jpg"
        label = first[f"labels/{split}/{i:06d}.txt"].decode()
        assert label == yolo_text(Annotation.from_dict(ann), "cards")
        assert all(len(line.split()) == 5 for line in label.splitlines())
    assert any(k.startswith("images/val/") for k in first) and any(k.startswith("images/train/") for k in first)
    # resuming writes only the new images; the old ones stay byte for byte
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*.jpg")}
    assert main(args[:4] + ["4"] + args[5:]) == 0
    assert all(p.stat().st_mtime_ns == t for p, t in stamps.items())
    resumed = _files(out)
    assert {k: v for k, v in resumed.items() if k in first and k != "synth.json"} == \
        {k: v for k, v in first.items() if k != "synth.json"}
    new = {k for k in resumed if k not in first}
    split = split_of(3, 0.34)
    assert new == {f"images/{split}/000003.jpg", f"labels/{split}/000003.txt", f"annotations/{split}/000003.json"}
    sample = generate_sample(3, SynthConfig(seed=11, val_fraction=0.34))  # as a fresh run would draw it
    assert resumed[f"images/{split}/000003.jpg"] == sample.jpeg
    assert Annotation.from_dict(json.loads(resumed[f"annotations/{split}/000003.json"])) == sample.annotation
    # another label scheme relabels from the annotations without drawing again
    assert main(args + ["--labels", "cards-obb"]) == 0
    label = next((out / "labels").glob("*/000000.txt")).read_text()
    assert all(len(line.split()) == 9 for line in label.splitlines())
    capsys.readouterr()


@pytest.mark.parametrize("extra, message", [
    (["--faces", "EMPTY"], "no card images"),
    (["--faces", "MISSING"], "does not exist"),
    (["--backs", "EMPTY"], "no SVG, PNG or JPG"),
    (["--val-fraction", "1.5"], "validation fraction"),
    (["--images", "-1"], "--images"),
])
def test_bad_arguments_exit_2_with_one_line(tmp_path: Path, capsys, extra, message):
    (tmp_path / "empty").mkdir()
    extra = [str(tmp_path / "empty") if e == "EMPTY" else str(tmp_path / "missing") if e == "MISSING" else e
             for e in extra]
    args = ["synth-data", "--out", str(tmp_path / "ds"), "--images", "2", "--no-progress"]
    if "--images" in extra:
        args = args[:3] + args[5:]
    assert main(args + extra) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err and err.startswith("referee synth-data: error:")


def test_other_seed_in_the_same_folder_is_refused(tmp_path: Path, capsys):
    out = str(tmp_path / "ds")
    assert main(["synth-data", "--out", out, "--images", "0", "--seed", "1", "--no-progress"]) == 0
    assert main(["synth-data", "--out", out, "--images", "1", "--seed", "2", "--no-progress"]) == 2
    assert "seed" in capsys.readouterr().err


def test_worker_processes_draw_the_same_images(tmp_path: Path):
    config = SynthConfig(seed=5, val_fraction=0.0)
    one, two = tmp_path / "one", tmp_path / "two"
    assert sorted(generate_dataset(one, 2, config, workers=1)) == [0, 1]
    assert sorted(generate_dataset(two, 2, config, workers=2)) == [0, 1]
    assert {k: v for k, v in _files(one).items() if k.startswith("images")} == \
        {k: v for k, v in _files(two).items() if k.startswith("images")}


def test_a_folder_share_of_one_draws_every_image_with_the_folders_faces(tmp_path: Path) -> None:
    faces = tmp_path / "faces"
    faces.mkdir()
    Image.new("RGB", (63, 88), (10, 200, 30)).save(faces / "QS.png")
    out = tmp_path / "set"
    assert main(["synth-data", "--out", str(out), "--images", "3", "--seed", "4", "--faces", str(faces),
                 "--folder-share", "1", "--no-progress"]) == 0
    notes = [json.loads(p.read_text()) for p in sorted(out.glob("annotations/*/*.json"))]
    assert len(notes) == 3 and all(n["scene"]["faces"] == "folder:faces" for n in notes)
    assert main(["synth-data", "--out", str(out), "--images", "3", "--seed", "4", "--faces", str(faces),
                 "--folder-share", "1.5", "--no-progress"]) == 2


def test_reserved_styles_are_drawn_only_when_named_and_on_the_same_scenes(tmp_path: Path) -> None:
    from referee.synth.backs import RESERVED_BACKS
    from referee.synth.faces import RESERVED_STYLES

    reserved = {s.name for s in RESERVED_STYLES} | {b.name for b in RESERVED_BACKS}
    plain = SynthConfig(seed=21, val_fraction=0.5)
    named = SynthConfig(seed=21, val_fraction=0.5, styles=tuple(sorted(reserved)))
    for index in range(40):  # the training sampler never draws a reserved style
        scene = generate_sample(index, plain).annotation.to_dict()["scene"]
        assert scene["faces"] not in reserved and scene["back"] not in reserved
    for index in range(3):  # named: only they are drawn, on the very same scenes
        one, two = generate_sample(index, plain).annotation.to_dict(), generate_sample(index, named).annotation.to_dict()
        assert two["scene"]["faces"] in reserved and two["scene"]["back"] in reserved
        assert [c["corners"] for c in one["cards"]] == [c["corners"] for c in two["cards"]]
        assert [c["card"] for c in one["cards"]] == [c["card"] for c in two["cards"]]
    only = SynthConfig(seed=21, styles=("reserved-liberation-serif",))  # a face style alone: training backs
    drawn = generate_sample(0, only).annotation.to_dict()["scene"]
    assert drawn["faces"] == "reserved-liberation-serif" and drawn["back"] not in reserved
    out = tmp_path / "set"
    assert main(["synth-data", "--out", str(out), "--images", "1", "--seed", "21", "--styles", "no-such-style",
                 "--no-progress"]) == 2
    assert main(["synth-data", "--out", str(out), "--images", "1", "--seed", "21", "--styles", "checks-8c1e3c",
                 "--no-progress"]) == 0
    assert main(["synth-data", "--out", str(out), "--images", "2", "--seed", "21", "--no-progress"]) == 2  # other styles


def test_a_varied_share_draws_made_up_faces_on_the_same_scenes(tmp_path: Path) -> None:
    plain = SynthConfig(seed=21, val_fraction=0.5)
    varied = SynthConfig(seed=21, val_fraction=0.5, varied_share=1.0)
    for index in range(3):
        one, two = generate_sample(index, plain).annotation.to_dict(), generate_sample(index, varied).annotation.to_dict()
        assert not one["scene"]["faces"].startswith("varied-") and two["scene"]["faces"].startswith("varied-")
        assert [c["corners"] for c in one["cards"]] == [c["corners"] for c in two["cards"]]
        assert [c["card"] for c in one["cards"]] == [c["card"] for c in two["cards"]]
        assert one["scene"]["back"] == two["scene"]["back"]
    half = SynthConfig(seed=21, varied_share=0.5)
    names = [generate_sample(index, half).annotation.to_dict()["scene"]["faces"] for index in range(12)]
    assert 0 < sum(n.startswith("varied-") for n in names) < 12
    out = tmp_path / "set"
    assert main(["synth-data", "--out", str(out), "--images", "1", "--seed", "21", "--varied-share", "1.5",
                 "--no-progress"]) == 2
    assert main(["synth-data", "--out", str(out), "--images", "1", "--seed", "21", "--varied-share", "0.5",
                 "--no-progress"]) == 0
    assert main(["synth-data", "--out", str(out), "--images", "2", "--seed", "21", "--no-progress"]) == 2  # another share
