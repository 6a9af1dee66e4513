"""Card faces and backs: every code in every built-in style, folders of images, clear errors."""

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from referee.synth.backs import BUILTIN_BACKS, RESERVED_BACKS, builtin_back, folder_back, folder_back_files
from referee.synth.faces import (BUILTIN_STYLES, FACE_CODES, FACE_H, FACE_W, RESERVED_STYLES, BuiltinFaces, FolderFaces,
                                 SynthAssetError, render_builtin_face)
from referee.synth.suits import SuitShape, suit_image
from referee.synth.varied import random_style, random_suit_shape


@pytest.mark.parametrize("style", BUILTIN_STYLES + RESERVED_STYLES, ids=lambda s: s.name)
def test_every_code_renders_in_every_style(style):
    seen = set()
    for code in FACE_CODES:
        face = render_builtin_face(code, style)
        assert face.shape == (FACE_H, FACE_W, 4) and face.dtype == np.uint8
        assert face[0, 0, 3] < 128 and face[FACE_H // 2, FACE_W // 2, 3] == 255  # round corners
        sample = face[::3, ::3, :3].astype(np.int16)
        ink = np.abs(sample - np.array(style.stock, np.int16)).sum(axis=2) > 120
        assert ink.mean() > 0.01, code
        seen.add(hash(face.tobytes()))
    assert len(seen) == len(FACE_CODES)  # no two cards look the same


def test_red_and_black_ink():
    style = BUILTIN_STYLES[0]
    heart, spade = render_builtin_face("7H", style), render_builtin_face("7S", style)
    assert (heart[..., 0].astype(int) - heart[..., 2] > 100).mean() > 0.01
    assert (spade[..., 0].astype(int) - spade[..., 2] > 100).mean() == 0


def test_reserved_styles_are_their_own():
    """A reserved face style shares no rank font, suit font, index size or place with a training style,
    and a reserved back no pattern with a training back: a set of them measures an unseen deck."""
    for reserved in RESERVED_STYLES:
        for style in BUILTIN_STYLES:
            assert reserved.rank_font != style.rank_font and reserved.suit_font != style.suit_font
            assert (reserved.index_height, reserved.index_margin) != (style.index_height, style.index_margin)
        assert not reserved.barred_jack and not reserved.four_index and reserved.index_suit  # ordinary index corners
    assert not {b.pattern for b in RESERVED_BACKS} & {b.pattern for b in BUILTIN_BACKS}
    assert not {b.name for b in RESERVED_BACKS} & {b.name for b in BUILTIN_BACKS}


def test_builtin_backs_render():
    for style in BUILTIN_BACKS + RESERVED_BACKS:
        back = builtin_back(style)
        assert back.shape == (FACE_H, FACE_W, 4)
        assert back[..., :3].std() > 5 or style.pattern == "plain"


def test_folder_of_png_faces(tmp_path: Path):
    Image.new("RGB", (63, 88), (10, 200, 30)).save(tmp_path / "QS.png")
    Image.new("RGB", (63, 88), (200, 10, 30)).save(tmp_path / "10h.jpg")
    (tmp_path / "notes.txt").write_text("not a card")
    faces = FolderFaces(tmp_path)
    assert faces.codes() == ("10H", "QS")
    face = faces.face("QS")
    assert face.shape == (FACE_H, FACE_W, 4)
    assert tuple(face[FACE_H // 2, FACE_W // 2, :3]) == (10, 200, 30)
    with pytest.raises(SynthAssetError):
        faces.face("AS")


def test_empty_or_missing_folders_are_refused(tmp_path: Path):
    (tmp_path / "readme.txt").write_text("nothing here")
    with pytest.raises(SynthAssetError, match="no card images"):
        FolderFaces(tmp_path)
    with pytest.raises(SynthAssetError, match="does not exist"):
        FolderFaces(tmp_path / "missing")
    with pytest.raises(SynthAssetError, match="no SVG, PNG or JPG"):
        folder_back_files(tmp_path)


def test_shared_svg_faces_and_backs(shared_dir: Path):
    pytest.importorskip("cairosvg")
    faces = FolderFaces(shared_dir / "data/card-art/knoll-public-domain/cards-svg")
    assert len(faces.codes()) == 53
    assert faces.face("2C").shape == (FACE_H, FACE_W, 4)
    back = folder_back(folder_back_files(shared_dir / "data/card-art/backs")[0])
    assert back.shape == (FACE_H, FACE_W, 4)


def test_builtin_faces_are_cached():
    faces = BuiltinFaces(BUILTIN_STYLES[1])
    assert faces.face("AS") is faces.face("as")


def test_svg_without_cairosvg_is_a_clear_error(tmp_path: Path, monkeypatch):
    (tmp_path / "QS.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="63" height="88"/>')
    monkeypatch.setitem(sys.modules, "cairosvg", None)  # import fails as if it were not installed
    with pytest.raises(SynthAssetError, match="cairosvg"):
        FolderFaces(tmp_path).face("QS")


def test_a_barred_jack_has_a_bar_across_the_top_of_its_index_and_only_the_jack_changes():
    barred = next(s for s in BUILTIN_STYLES if s.barred_jack)
    plain = dataclasses.replace(barred, barred_jack=False)

    def top_ink_width(style, code: str) -> int:
        corner = render_builtin_face(code, style)[: FACE_H // 5, : FACE_W // 4, :3].astype(np.int16)
        ink = np.abs(corner - np.array(style.stock, np.int16)).sum(axis=2) > 200
        rows = np.flatnonzero(ink.any(axis=1))
        return int(ink[rows[0] : rows[0] + 2].any(axis=0).sum())

    assert top_ink_width(barred, "JC") > 1.3 * top_ink_width(plain, "JC")
    for code in ("3C", "QH", "KS", "10D"):
        assert np.array_equal(render_builtin_face(code, barred), render_builtin_face(code, plain))


def test_parametric_suits_are_four_distinct_shapes_whose_proportions_vary():
    rng = np.random.default_rng(5)
    shapes = [SuitShape()] + [random_suit_shape(rng) for _ in range(20)]
    masks = {suit: [] for suit in "SHDC"}
    for shape in shapes:
        for suit in "SHDC":
            tile = suit_image(suit, shape, 60, (0, 0, 0))
            alpha = np.asarray(tile.getchannel("A")) > 127
            assert tile.height == round(shape.height * 60) and 0.3 < alpha.mean() < 0.9, suit
            assert alpha[:, 0].mean() < 0.5 and alpha[:, -1].mean() < 0.5  # no side is a straight edge
            masks[suit].append(np.asarray(tile.resize((24, 24)).getchannel("A"), np.float32) / 255)
    for suit in "SHDC":  # each suit varies from deck to deck, yet stays unlike the other suits
        spread = np.mean([np.abs(m - masks[suit][0]).mean() for m in masks[suit][1:]])
        assert spread > 0.03, suit
        for other in "SHDC".replace(suit, ""):
            apart = np.mean([np.abs(a - b).mean() for a, b in zip(masks[suit], masks[other])])
            assert apart > spread, (suit, other)
    with pytest.raises(ValueError):
        suit_image("X", SuitShape(), 60, (0, 0, 0))


def test_made_up_styles_differ_render_every_code_and_never_use_the_reserved_fonts():
    reserved_fonts = {s.rank_font for s in RESERVED_STYLES} | {s.suit_font for s in RESERVED_STYLES}
    rng = np.random.default_rng(11)
    styles = [random_style(rng) for _ in range(200)]
    assert len({s.name for s in styles}) == 200 and len({s.rank_font for s in styles}) > 8
    assert 0.6 < np.mean([s.suit_shape is not None for s in styles]) < 0.9
    for style in styles:
        assert not {style.rank_font, style.suit_font} & reserved_fonts and "Liberation" not in style.rank_font
        assert style.index_suit and 0.08 <= style.index_height <= 0.16
    for style in styles[:3]:
        faces = {render_builtin_face(code, style).tobytes() for code in FACE_CODES}
        assert len(faces) == len(FACE_CODES)
