"""Card faces drawn by the project (several printed styles) or read from a folder of images."""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from referee.cards import ALL_CARDS, JOKER_CODE, RED_SUITS, SUIT_GLYPHS, parse_card
from referee.errors import RefereeError
from referee.synth.suits import SuitShape, suit_image

CARD_W_CM: Final = 6.3
CARD_H_CM: Final = 8.8
FACE_W: Final = 240
FACE_H: Final = round(FACE_W * CARD_H_CM / CARD_W_CM)
"""Every face and back is an RGBA array of FACE_H x FACE_W (about 38 px per cm)."""

RGB = tuple[int, int, int]
SUIT_FONT: Final = "DejaVuSans.ttf"
IMAGE_SUFFIXES: Final = (".svg", ".png", ".jpg", ".jpeg", ".webp")
FACE_CODES: Final = tuple(c.code for c in ALL_CARDS) + (JOKER_CODE,)
"""Every code a built-in style draws: the 52 cards and the joker."""


class FaceSource(Protocol):
    """Anything that gives the RGBA face (FACE_H x FACE_W x 4, uint8) of a card code."""

    name: str

    def face(self, code: str) -> np.ndarray: ...


class SynthAssetError(RefereeError, ValueError):
    """A faces or backs folder that cannot be used, or a missing optional renderer."""


@dataclass(frozen=True)
class FaceStyle:
    """How one printed deck looks; every field is a plain value so styles pickle and hash."""

    name: str
    rank_font: str
    stock: RGB = (250, 250, 246)
    black_ink: RGB = (18, 18, 22)
    red_ink: RGB = (200, 22, 34)
    index_height: float = 0.11
    """Height of the rank text as a fraction of the card height."""
    index_margin: tuple[float, float] = (0.045, 0.035)
    pip_scale: float = 0.16
    corner_radius: float = 0.07
    border: RGB | None = None
    court_colors: tuple[RGB, RGB, RGB] = ((230, 180, 40), (40, 70, 160), (190, 30, 40))
    court_frame: bool = True
    index_suit: bool = True
    four_index: bool = False
    """Indices in all four corners (the annotation's index corners stay top-left and bottom-right)."""
    suit_font: str = SUIT_FONT
    barred_jack: bool = False
    """The index J carries a bar across its top, as many casino and pinochle decks print it."""
    suit_shape: SuitShape | None = None
    """Suits drawn from these parametric shapes rather than from `suit_font`'s glyphs."""
    suit_size: float = 0.85
    """Height of the index suit's font size as a share of the rank's."""
    rank_stretch: float = 1.0
    """Width of the index rank as a share of the font's (below 1 condensed, above 1 extended)."""
    rank_stroke: float = 0.0
    """Outline added around the index rank's strokes, as a share of its font size (bolder than the font)."""


BUILTIN_STYLES: Final[tuple[FaceStyle, ...]] = (
    FaceStyle("classic-sans", "DejaVuSans-Bold.ttf"),
    FaceStyle("cream-serif", "DejaVuSerif-Bold.ttf", stock=(244, 236, 216),
              black_ink=(30, 26, 24), red_ink=(180, 30, 30), index_height=0.10),
    FaceStyle("jumbo-condensed", "DejaVuSansCondensed-Bold.ttf", index_height=0.17,
              index_margin=(0.03, 0.025), pip_scale=0.13, corner_radius=0.06,
              court_colors=((240, 200, 60), (20, 110, 90), (210, 40, 40))),
    FaceStyle("thin-serif", "DejaVuSerif.ttf", stock=(252, 252, 252), index_height=0.09,
              index_margin=(0.06, 0.045), pip_scale=0.18, corner_radius=0.09,
              border=(120, 120, 140), court_frame=False),
    FaceStyle("mono-bordered", "DejaVuSansMono-Bold.ttf", stock=(247, 244, 236),
              black_ink=(0, 0, 0), red_ink=(215, 0, 20), index_height=0.12,
              border=(30, 30, 30), court_colors=((200, 160, 90), (90, 40, 120), (170, 20, 20))),
    FaceStyle("small-index-cream", "DejaVuSans.ttf", stock=(240, 232, 210),
              black_ink=(35, 35, 45), red_ink=(190, 45, 45), index_height=0.08,
              index_margin=(0.05, 0.05), pip_scale=0.19, corner_radius=0.05),
    FaceStyle("serif-condensed", "DejaVuSerifCondensed-Bold.ttf", index_height=0.13,
              pip_scale=0.15, corner_radius=0.08,
              court_colors=((250, 210, 80), (30, 30, 30), (200, 20, 30))),
    FaceStyle("four-corner", "DejaVuSans-Bold.ttf", stock=(248, 248, 250), index_height=0.10,
              index_margin=(0.035, 0.03), pip_scale=0.14, four_index=True, suit_font="DejaVuSans-Bold.ttf",
              court_colors=((235, 190, 50), (50, 50, 150), (210, 30, 50))),
    FaceStyle("big-pips-serif", "DejaVuSerif-Bold.ttf", stock=(246, 242, 230), black_ink=(25, 25, 25),
              red_ink=(205, 35, 45), index_height=0.115, pip_scale=0.22, corner_radius=0.1,
              suit_font="DejaVuSerif.ttf", court_frame=False,
              court_colors=((220, 170, 60), (60, 110, 170), (190, 40, 40))),
    FaceStyle("light-mono", "DejaVuSansMono.ttf", stock=(252, 250, 245), black_ink=(50, 50, 60),
              red_ink=(225, 60, 60), index_height=0.095, index_margin=(0.05, 0.04), pip_scale=0.16,
              corner_radius=0.065, border=(180, 180, 190),
              court_colors=((240, 220, 120), (120, 160, 210), (230, 110, 110))),
    FaceStyle("casino-serif", "DejaVuSerifCondensed-Bold.ttf", stock=(250, 249, 244), index_height=0.12,
              index_margin=(0.04, 0.03), pip_scale=0.17, barred_jack=True,
              court_colors=((235, 195, 60), (40, 80, 170), (205, 30, 40))),
    FaceStyle("casino-sans", "DejaVuSans-Bold.ttf", stock=(245, 243, 236), black_ink=(20, 20, 30),
              index_height=0.11, index_margin=(0.04, 0.035), corner_radius=0.06, barred_jack=True,
              court_colors=((225, 185, 70), (30, 60, 130), (180, 25, 35))),
)


RESERVED_STYLES: Final[tuple[FaceStyle, ...]] = (
    FaceStyle("reserved-liberation-sans", "LiberationSans-Bold.ttf", stock=(251, 250, 247), black_ink=(15, 15, 20),
              red_ink=(210, 25, 40), index_height=0.105, index_margin=(0.055, 0.04), pip_scale=0.17,
              corner_radius=0.075, suit_font="LiberationSans-Bold.ttf",
              court_colors=((230, 175, 55), (35, 90, 160), (195, 35, 45))),
    FaceStyle("reserved-liberation-serif", "LiberationSerif-Bold.ttf", stock=(243, 238, 224), black_ink=(28, 24, 22),
              red_ink=(190, 20, 50), index_height=0.125, index_margin=(0.035, 0.028), pip_scale=0.15,
              corner_radius=0.055, suit_font="LiberationSerif-Bold.ttf", court_frame=False,
              court_colors=((215, 180, 90), (70, 50, 130), (175, 30, 35))),
)
"""Face styles no training set draws (`BUILTIN_STYLES` are what `referee synth-data` draws unless told
otherwise): fonts, suit shapes, index sizes and positions of their own, ordinary two-corner indices
(rank over suit, a plain J). A set drawn with them alone (`referee synth-data --styles`) measures a
deck the models never saw, however much card art they are trained on."""

STYLES_BY_NAME: Final[dict[str, FaceStyle]] = {s.name: s for s in BUILTIN_STYLES + RESERVED_STYLES}


@functools.lru_cache(maxsize=64)
def font(name: str, size: int) -> ImageFont.FreeTypeFont:
    try:
        return ImageFont.truetype(name, size)
    except OSError as exc:
        raise SynthAssetError(f"font {name} is not installed (Debian packages fonts-dejavu, fonts-liberation)") from exc


@functools.lru_cache(maxsize=16)
def rounded_alpha(radius_px: float) -> np.ndarray:
    """An anti-aliased card-shaped alpha mask (FACE_H x FACE_W, uint8) with rounded corners."""
    ys, xs = np.mgrid[0:FACE_H, 0:FACE_W].astype(np.float32) + 0.5
    cx = np.clip(xs, radius_px, FACE_W - radius_px)
    cy = np.clip(ys, radius_px, FACE_H - radius_px)
    dist = np.hypot(xs - cx, ys - cy)
    return (np.clip(radius_px - dist + 0.5, 0.0, 1.0) * 255).astype(np.uint8)


def with_card_shape(rgb: Image.Image, radius_frac: float, alpha: np.ndarray | None = None) -> np.ndarray:
    """The RGBA array of a face image resized to the card raster, corners cut round."""
    arr = np.asarray(rgb.convert("RGB").resize((FACE_W, FACE_H), Image.Resampling.LANCZOS))
    shape = rounded_alpha(round(radius_frac * FACE_W, 1))
    if alpha is not None:
        shape = np.minimum(shape, alpha)
    return np.dstack([arr, shape])


def _glyph(text: str, font_name: str, size: int, ink: RGB, stroke: int = 0) -> Image.Image:
    """A tight RGBA image of some text in one ink, its strokes thickened by `stroke` pixels."""
    f = font(font_name, size)
    left, top, right, bottom = f.getbbox(text, stroke_width=stroke)
    img = Image.new("RGBA", (max(1, right - left), max(1, bottom - top)), ink + (0,))
    ImageDraw.Draw(img).text((-left, -top), text, font=f, fill=ink + (255,), stroke_width=stroke, stroke_fill=ink + (255,))
    return img


SUIT_OF_GLYPH: Final = {glyph: suit for suit, glyph in SUIT_GLYPHS.items()}


def _suit(glyph: str, style: FaceStyle, size: int, ink: RGB) -> Image.Image:
    """A suit in a style: its parametric shape where it has one, else its suit font's glyph."""
    if style.suit_shape is not None and glyph in SUIT_OF_GLYPH:
        return suit_image(SUIT_OF_GLYPH[glyph], style.suit_shape, size, ink)
    return _glyph(glyph, style.suit_font, size, ink)


def _paste_centered(card: Image.Image, tile: Image.Image, cx: float, cy: float) -> None:
    card.alpha_composite(tile, (round(cx - tile.width / 2), round(cy - tile.height / 2)))


def _pip_positions(rank: int) -> list[tuple[float, float]]:
    """Pip centres for ranks 2..10 in a unit box (x across, y down)."""
    l, c, r = 0.0, 0.5, 1.0
    corners = [(l, 0.0), (r, 0.0), (l, 1.0), (r, 1.0)]
    table: dict[int, list[tuple[float, float]]] = {
        2: [(c, 0.0), (c, 1.0)],
        3: [(c, 0.0), (c, 0.5), (c, 1.0)],
        4: corners,
        5: corners + [(c, 0.5)],
        6: corners + [(l, 0.5), (r, 0.5)],
        7: corners + [(l, 0.5), (r, 0.5), (c, 0.25)],
        8: corners + [(l, 0.5), (r, 0.5), (c, 0.25), (c, 0.75)],
        9: [(x, y) for x in (l, r) for y in (0.0, 1 / 3, 2 / 3, 1.0)] + [(c, 0.5)],
        10: [(x, y) for x in (l, r) for y in (0.0, 1 / 3, 2 / 3, 1.0)] + [(c, 1 / 6), (c, 5 / 6)],
    }
    return table[rank]


def _barred(letter: Image.Image, ink: RGB) -> Image.Image:
    """A letter with a bar as thick as its stem across its top, reaching past it on both sides."""
    alpha = np.asarray(letter.getchannel("A")) > 127
    stem = max(2, int(alpha[alpha.shape[0] // 3].sum()))
    reach = max(1, round(0.2 * letter.width))
    out = Image.new("RGBA", (letter.width + 2 * reach, letter.height), ink + (0,))
    out.alpha_composite(letter, (reach, 0))
    ImageDraw.Draw(out).rectangle([0, 0, out.width - 1, stem - 1], fill=ink + (255,))
    return out


def _index_tile(rank_text: str, suit_glyph: str, style: FaceStyle, ink: RGB) -> Image.Image:
    size = max(8, round(style.index_height * FACE_H * 1.3))
    rank_img = _glyph(rank_text, style.rank_font, size, ink, round(style.rank_stroke * size))
    if style.rank_stretch != 1.0:
        rank_img = rank_img.resize((max(1, round(rank_img.width * style.rank_stretch)), rank_img.height),
                                   Image.Resampling.LANCZOS)
    if rank_text == "J" and style.barred_jack:
        rank_img = _barred(rank_img, ink)
    if rank_text == "10" and rank_img.width > 0.2 * FACE_W:  # keep a wide 10 inside the corner
        rank_img = rank_img.resize((round(0.2 * FACE_W), rank_img.height), Image.Resampling.LANCZOS)
    parts = [rank_img]
    if style.index_suit and suit_glyph:
        if suit_glyph in SUIT_OF_GLYPH:
            parts.append(_suit(suit_glyph, style, round(size * style.suit_size), ink))
        else:  # the joker's star
            parts.append(_glyph(suit_glyph, SUIT_FONT, round(size * style.suit_size), ink))
    gap = max(1, size // 10)
    width = max(p.width for p in parts)
    tile = Image.new("RGBA", (width, sum(p.height for p in parts) + gap * (len(parts) - 1)), ink + (0,))
    y = 0
    for part in parts:
        tile.alpha_composite(part, ((width - part.width) // 2, y))
        y += part.height + gap
    return tile


def _court_art(card: Image.Image, rank_text: str, glyph: str, style: FaceStyle, ink: RGB) -> None:
    """A framed, double-ended figure with the rank letter: simple but unmistakably a court card."""
    draw = ImageDraw.Draw(card)
    x0, y0, x1, y1 = (round(0.2 * FACE_W), round(0.13 * FACE_H),
                      round(0.8 * FACE_W), round(0.87 * FACE_H))
    gold, blue, red = style.court_colors
    half = Image.new("RGBA", (x1 - x0, (y1 - y0) // 2), (0, 0, 0, 0))
    hd = ImageDraw.Draw(half)
    w, h = half.size
    # robe: a trapezoid with stripes, shoulders and a collar
    hd.polygon([(0.12 * w, h), (0.88 * w, h), (0.78 * w, 0.55 * h), (0.22 * w, 0.55 * h)], fill=blue + (255,))
    for k in range(5):
        xs = 0.2 * w + k * 0.15 * w
        hd.line([(xs, 0.6 * h), (xs + 0.05 * w, h)], fill=gold + (255,), width=max(2, w // 30))
    hd.polygon([(0.35 * w, 0.55 * h), (0.65 * w, 0.55 * h), (0.5 * w, 0.8 * h)], fill=red + (255,))
    # head, hair and a crown (king, queen) or a cap (jack)
    hd.ellipse([0.38 * w, 0.22 * h, 0.62 * w, 0.56 * h], fill=(245, 215, 180, 255), outline=ink + (255,))
    hd.arc([0.38 * w, 0.22 * h, 0.62 * w, 0.56 * h], 200, 340, fill=gold + (255,), width=max(2, w // 25))
    if rank_text == "J":
        hd.polygon([(0.34 * w, 0.27 * h), (0.66 * w, 0.27 * h), (0.6 * w, 0.1 * h), (0.4 * w, 0.12 * h)],
                   fill=red + (255,))
    else:
        spikes = [(0.36 * w, 0.27 * h), (0.36 * w, 0.08 * h), (0.43 * w, 0.18 * h), (0.5 * w, 0.04 * h),
                  (0.57 * w, 0.18 * h), (0.64 * w, 0.08 * h), (0.64 * w, 0.27 * h)]
        hd.polygon(spikes, fill=gold + (255,), outline=ink + (255,))
    if rank_text == "Q":
        hd.ellipse([0.16 * w, 0.6 * h, 0.3 * w, 0.78 * h], fill=red + (255,), outline=gold + (255,))
    elif rank_text == "K":
        hd.line([(0.8 * w, 0.15 * h), (0.8 * w, h)], fill=ink + (255,), width=max(2, w // 28))
    letter = _glyph(rank_text, style.rank_font, round(0.3 * h), ink)
    half.alpha_composite(letter, (round(0.04 * w), round(0.05 * h)))
    suit = _suit(glyph, style, round(0.22 * h), ink)
    half.alpha_composite(suit, (round(0.96 * w - suit.width), round(0.05 * h)))
    tint = tuple(int(0.85 * s + 0.15 * g) for s, g in zip(style.stock, gold))
    draw.rectangle([x0, y0, x1, y1], fill=tint)
    card.alpha_composite(half, (x0, y0))
    card.alpha_composite(half.transpose(Image.Transpose.ROTATE_180), (x0, y1 - half.height))
    draw.line([(x0, (y0 + y1) // 2), (x1, (y0 + y1) // 2)], fill=ink, width=2)
    if style.court_frame:
        draw.rectangle([x0, y0, x1, y1], outline=ink, width=2)
        draw.rectangle([x0 + 4, y0 + 4, x1 - 4, y1 - 4], outline=gold, width=2)


def _joker_art(card: Image.Image, style: FaceStyle, ink: RGB) -> None:
    draw = ImageDraw.Draw(card)
    cx, cy, r = FACE_W / 2, FACE_H / 2, 0.3 * FACE_W
    angles = np.linspace(0, 2 * np.pi, 11)[:-1] - np.pi / 2
    star = [(cx + (r if k % 2 == 0 else r * 0.45) * np.cos(a), cy + (r if k % 2 == 0 else r * 0.45) * np.sin(a))
            for k, a in enumerate(angles)]
    draw.polygon(star, fill=style.court_colors[0], outline=ink)
    _paste_centered(card, _glyph("JOKER", style.rank_font, round(0.07 * FACE_H), ink), cx, 0.82 * FACE_H)


def render_builtin_face(code: str, style: FaceStyle) -> np.ndarray:
    """The RGBA face (FACE_H x FACE_W x 4) of a card code in a built-in style."""
    card_obj = parse_card(code)
    card = Image.new("RGBA", (FACE_W, FACE_H), style.stock + (255,))
    if card_obj.code == JOKER_CODE:
        ink, rank_text, glyph = style.red_ink, "J", "★"
        index = _index_tile(rank_text, glyph, style, ink)
    else:
        ink = style.red_ink if card_obj.suit in RED_SUITS else style.black_ink
        rank_text, glyph = card_obj.rank_name, SUIT_GLYPHS[card_obj.suit]
        index = _index_tile(rank_text, glyph, style, ink)
    mx, my = style.index_margin[0] * FACE_W, style.index_margin[1] * FACE_H
    card.alpha_composite(index, (round(mx), round(my)))
    card.alpha_composite(index.transpose(Image.Transpose.ROTATE_180),
                         (round(FACE_W - mx - index.width), round(FACE_H - my - index.height)))
    if style.four_index:
        card.alpha_composite(index, (round(FACE_W - mx - index.width), round(my)))
        card.alpha_composite(index.transpose(Image.Transpose.ROTATE_180), (round(mx), round(FACE_H - my - index.height)))
    if card_obj.code == JOKER_CODE:
        _joker_art(card, style, ink)
    elif card_obj.rank == 1:
        big = 3.2 if card_obj.suit == "S" else 2.4
        _paste_centered(card, _suit(glyph, style, round(style.pip_scale * big * FACE_W * 1.2), ink),
                        FACE_W / 2, FACE_H / 2)
        if card_obj.suit == "S":  # the ace of spades is dressed up
            draw = ImageDraw.Draw(card)
            r = min(style.pip_scale * big * FACE_W * 0.75, 0.36 * FACE_W)
            draw.ellipse([FACE_W / 2 - r, FACE_H / 2 - r, FACE_W / 2 + r, FACE_H / 2 + r], outline=ink, width=2)
    elif card_obj.rank >= 11:
        _court_art(card, rank_text, glyph, style, ink)
    else:
        pip = _suit(glyph, style, round(style.pip_scale * FACE_W * 1.2), ink)
        pip_down = pip.transpose(Image.Transpose.ROTATE_180)
        left, right = 0.3 * FACE_W, 0.7 * FACE_W
        top, bottom = 0.17 * FACE_H, 0.83 * FACE_H
        for u, v in _pip_positions(card_obj.rank):
            tile = pip_down if v > 0.5 else pip
            _paste_centered(card, tile, left + u * (right - left), top + v * (bottom - top))
    if style.border is not None:
        inset = round(0.03 * FACE_W)
        ImageDraw.Draw(card).rounded_rectangle(
            [inset, inset, FACE_W - 1 - inset, FACE_H - 1 - inset],
            radius=round(style.corner_radius * FACE_W * 0.7), outline=style.border, width=1)
    return with_card_shape(card, style.corner_radius)


@dataclass(frozen=True)
class BuiltinFaces:
    """A FaceSource drawing faces in one built-in style (cached per process)."""

    style: FaceStyle

    @property
    def name(self) -> str:
        return self.style.name

    def face(self, code: str) -> np.ndarray:
        return _cached_builtin(parse_card(code).code, self.style)


@functools.lru_cache(maxsize=400)
def _cached_builtin(code: str, style: FaceStyle) -> np.ndarray:
    face = render_builtin_face(code, style)
    face.setflags(write=False)
    return face


def load_image_file(path: Path, radius_frac: float = 0.06) -> np.ndarray:
    """An SVG, PNG or JPG card image as a card-shaped RGBA array (SVG needs cairosvg)."""
    if path.suffix.lower() == ".svg":
        try:
            import cairosvg  # optional: in the [train] extra
        except ImportError as exc:
            raise SynthAssetError(
                f"{path.parent} holds SVG images: install cairosvg (pip install 'spit-referee[train]')"
            ) from exc
        try:
            png = cairosvg.svg2png(url=str(path), output_width=FACE_W * 2, output_height=FACE_H * 2)
        except Exception as exc:  # cairosvg raises many kinds on a broken file
            raise SynthAssetError(f"cannot render {path}: {exc}") from exc
        image = Image.open(io.BytesIO(png))
    else:
        try:
            image = Image.open(path)
            image.load()
        except OSError as exc:
            raise SynthAssetError(f"cannot read {path}: {exc}") from exc
    rgba = image.convert("RGBA").resize((FACE_W, FACE_H), Image.Resampling.LANCZOS)
    arr = np.asarray(rgba)
    stock = np.full((FACE_H, FACE_W, 3), 250, np.uint8)  # transparent parts print as white stock
    a = arr[..., 3:4].astype(np.float32) / 255
    rgb = (arr[..., :3] * a + stock * (1 - a)).astype(np.uint8)
    return with_card_shape(Image.fromarray(rgb), radius_frac, np.where(arr[..., 3] > 0, 255, 0).astype(np.uint8)
                           if arr[..., 3].min() == 0 else None)


def _code_of_file(path: Path) -> str | None:
    stem = path.stem.upper()
    if stem.startswith("JOKER"):
        return JOKER_CODE
    try:
        return parse_card(stem).code
    except RefereeError:
        return None


@dataclass(frozen=True)
class FolderFaces:
    """Face images from a folder, named by card code (QS.svg, 10h.png; Joker*.svg for jokers)."""

    folder: Path
    name: str = "folder"

    def __post_init__(self) -> None:
        if not self.folder.is_dir():
            raise SynthAssetError(f"faces folder {self.folder} does not exist")
        if not self.files():
            raise SynthAssetError(f"faces folder {self.folder} holds no card images named by code "
                                  "(e.g. QS.svg, 10H.png)")

    def files(self) -> dict[str, Path]:
        return _face_files(self.folder)

    def codes(self) -> tuple[str, ...]:
        return tuple(sorted(self.files()))

    def face(self, code: str) -> np.ndarray:
        files = self.files()
        key = parse_card(code).code
        if key not in files:
            raise SynthAssetError(f"faces folder {self.folder} has no image for {key}")
        return _cached_file(files[key])


@functools.lru_cache(maxsize=16)
def _face_files(folder: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() in IMAGE_SUFFIXES:
            code = _code_of_file(path)
            if code is not None and code not in found:
                found[code] = path
    return found


@functools.lru_cache(maxsize=200)
def _cached_file(path: Path) -> np.ndarray:
    face = load_image_file(path)
    face.setflags(write=False)
    return face
