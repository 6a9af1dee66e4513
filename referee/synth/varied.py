"""Face styles made up at random for training sets: rank fonts, inks, index sizes and suit shapes of many decks."""

from __future__ import annotations

from typing import Final

import numpy as np

from referee.synth.faces import FaceStyle
from referee.synth.suits import SuitShape

RANK_FONTS: Final = (
    "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansCondensed.ttf", "DejaVuSansCondensed-Bold.ttf",
    "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerifCondensed.ttf", "DejaVuSerifCondensed-Bold.ttf",
    "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf", "DejaVuMathTeXGyre.ttf",
)
"""Installed fonts a made-up style draws its ranks with: never the reserved styles' (Liberation), which
stay unseen so that they measure other decks."""
SUIT_FONTS: Final = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf",
                     "DejaVuSansMono.ttf", "DejaVuMathTeXGyre.ttf")
"""Fonts whose suit glyphs a made-up style may draw instead of parametric shapes."""
SHAPED_SUITS: Final = 0.75
"""Share of made-up styles whose suits are parametric shapes (`referee.synth.suits`) rather than a font's glyphs."""


def random_suit_shape(rng: np.random.Generator) -> SuitShape:
    """Suit proportions as decks print them: fat or slim hearts, deep or shallow clefts, thin or
    flared stems, narrow or wide diamonds with straight, hollow or full sides."""
    return SuitShape(
        height=float(rng.uniform(0.6, 0.8)), aspect=float(rng.uniform(0.8, 1.1)), lobe=float(rng.uniform(0.24, 0.3)),
        cleft=float(rng.uniform(0.05, 0.45)), bulge=float(rng.uniform(-0.05, 0.12)),
        club_lobe=float(rng.uniform(0.19, 0.26)), club_drop=float(rng.uniform(0.3, 0.6)),
        stem_width=float(rng.uniform(0.06, 0.2)), stem_flare=float(rng.uniform(0.2, 0.55)),
        stem_length=float(rng.uniform(0.15, 0.32)), diamond_aspect=float(rng.uniform(0.6, 0.88)),
        diamond_bulge=float(rng.uniform(-0.12, 0.08)),
    )


def _colour(rng: np.random.Generator, base: tuple[int, int, int], spread: int) -> tuple[int, int, int]:
    r, g, b = (int(np.clip(c + rng.integers(-spread, spread + 1), 0, 255)) for c in base)
    return r, g, b


def random_style(rng: np.random.Generator) -> FaceStyle:
    """A made-up printed deck with ordinary index corners (rank over suit); its name says it was made up."""
    shape = random_suit_shape(rng) if rng.random() < SHAPED_SUITS else None
    white = int(rng.integers(232, 256))
    stock = _colour(rng, (white, white - int(rng.integers(0, 14)), white - int(rng.integers(0, 30))), 3)
    return FaceStyle(
        name=f"varied-{int(rng.integers(1 << 30)):08x}",
        rank_font=RANK_FONTS[int(rng.integers(len(RANK_FONTS)))],
        stock=stock,
        black_ink=_colour(rng, (20, 20, 25), 18),
        red_ink=_colour(rng, (200, 30, 40), 25),
        index_height=float(rng.uniform(0.08, 0.16)),
        index_margin=(float(rng.uniform(0.025, 0.065)), float(rng.uniform(0.02, 0.055))),
        pip_scale=float(rng.uniform(0.13, 0.21)),
        corner_radius=float(rng.uniform(0.04, 0.1)),
        border=_colour(rng, (110, 110, 120), 60) if rng.random() < 0.25 else None,
        court_colors=(_colour(rng, (230, 185, 60), 25), _colour(rng, (50, 80, 150), 50), _colour(rng, (195, 30, 40), 25)),
        court_frame=bool(rng.random() < 0.6),
        four_index=bool(rng.random() < 0.1),
        suit_font=SUIT_FONTS[int(rng.integers(len(SUIT_FONTS)))],
        barred_jack=bool(rng.random() < 0.2),
        suit_shape=shape,
        suit_size=float(rng.uniform(0.65, 1.0)),
        rank_stretch=float(rng.uniform(0.75, 1.2)),
        rank_stroke=float(rng.choice([0.0, 0.0, 0.02, 0.04])),
    )
