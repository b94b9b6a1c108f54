"""The 18 MedQ-Deg degradations: every "Test:" property of the spec
(``docs/medqdeg-degradations.md``), determinism, nesting of L1/L2, shapes, dtypes, clipping,
Table 5 applicability and argument errors. Small images keep the module fast."""

import hashlib

import numpy as np
import pytest
from PIL import Image
from scipy import ndimage

from medvigil.suites.medqdeg import degradation_types as T
from medvigil.suites.medqdeg import degradations as D
from medvigil.suites.medqdeg import image_degradations, scanner_degradations


def _texture(
    h: int = 64, w: int = 64, lo: float = 0.2, hi: float = 0.8, seed: int = 0, smooth: float = 2.0
) -> np.ndarray:
    a = ndimage.gaussian_filter(np.random.default_rng(seed).random((h, w)), smooth)
    return lo + (hi - lo) * (a - a.min()) / (a.max() - a.min())


def _phantom(n: int = 64) -> np.ndarray:
    """A disc with a brighter inner disc (CT-like, zero background)."""
    yy, xx = np.mgrid[0:n, 0:n] - (n - 1) / 2
    r = np.hypot(yy, xx)
    return np.where(r < 0.4 * n, 0.5, 0.0) + np.where(np.hypot(yy - 5, xx + 6) < 0.12 * n, 0.3, 0.0)


def _psnr(y: np.ndarray, x: np.ndarray) -> float:
    return float(10 * np.log10(1.0 / np.mean((y - x) ** 2)))


def _levels(x, kind, seed=7, **kw):
    return D.degrade(x, kind, 1, seed, **kw), D.degrade(x, kind, 2, seed, **kw)


def _lag1(a: np.ndarray) -> float:
    a = a - a.mean()
    return float((a[:, 1:] * a[:, :-1]).mean() / a.var())


# ---------------------------------------------------------------- conventions (all types)


@pytest.mark.parametrize("kind", T.KINDS)
def test_shape_dtype_clip_copy_and_determinism(kind):
    n = 48 if kind in T.MODALITY_KINDS["CT"] else 64
    grey = _texture(n, n + 8, 0.0, 1.0).astype(np.float32)
    rgb = np.stack([grey, grey * 0.9, grey * 0.7], axis=2).astype(np.float64)
    for x in (grey, rgb):
        y0 = D.degrade(x, kind, 0, 3)
        assert y0 is not x and np.array_equal(y0, x)
        for level in (1, 2):
            y = D.degrade(x, kind, level, 3)
            assert y.shape == x.shape and y.dtype == x.dtype
            assert y.min() >= 0 and y.max() <= 1 and not np.array_equal(y, x)
            assert np.array_equal(y, D.degrade(x, kind, level, 3))  # deterministic
    # grey RGB stays grey, except the coloured blood cells and per-channel noise
    g3 = np.repeat(grey[..., None], 3, axis=2)
    y = D.degrade(g3, kind, 2, 3)
    if kind not in ("blood_cell_artifact", "gaussian_noise"):
        assert np.array_equal(y[..., 0], y[..., 1]) and np.array_equal(y[..., 0], y[..., 2])
        assert np.array_equal(y[..., 0], D.degrade(grey, kind, 2, 3))  # same draws as the 2-D image


def test_seed_for_is_sha256_prefix_and_seeds_matter():
    expected = int.from_bytes(hashlib.sha256(b"images/a.jpggaussian_noise").digest()[:8], "big")
    assert T.seed_for("images/a.jpg", "gaussian_noise") == expected
    assert T.seed_for("images/a.jpg", "motion_blur") != T.seed_for("images/b.jpg", "motion_blur")
    x = _texture()
    for kind in (
        "gaussian_noise",
        "object_rotation",
        "motion_blur",
        "bias_field_artifact",
        "bubble",
    ):
        assert not np.array_equal(D.degrade(x, kind, 1, 1), D.degrade(x, kind, 1, 2)), kind


def test_table5_applicability_and_type_choice():
    assert len(T.KINDS) == 18 and len(T.GENERAL_KINDS) == 9
    assert set(T.applicable_kinds("X-ray")) == set(T.GENERAL_KINDS)
    assert set(T.applicable_kinds("CT")) == set(T.GENERAL_KINDS) | {
        "limited_angle",
        "sparse_view",
        "low_dose",
    }
    assert set(T.applicable_kinds("MRI")) - set(T.GENERAL_KINDS) == {
        "bias_field_artifact",
        "undersampling_artifact",
        "ghosting_artifact",
    }
    assert set(T.applicable_kinds("Histopathology")) - set(T.GENERAL_KINDS) == {
        "blood_cell_artifact",
        "dark_spots_artifact",
        "bubble",
    }
    assert (
        T.applicable_kinds("Ultrasound") == T.applicable_kinds(None) == T.applicable_kinds("X-ray")
    )
    three = T.choose_kinds("images/MVB-0001.jpg", "CT")
    assert len(three) == 3 and set(three) <= set(T.applicable_kinds("CT"))
    assert three == T.choose_kinds("images/MVB-0001.jpg", "CT")
    assert set(three) <= set(T.choose_kinds("images/MVB-0001.jpg", "CT", 4))  # nested
    assert T.choose_kinds("x", "MRI", None) == T.applicable_kinds("MRI")
    picks = {k for i in range(60) for k in T.choose_kinds(f"img{i}", "CT")}
    assert picks == set(T.applicable_kinds("CT"))  # every applicable type gets chosen


def test_pil_wrapper_keeps_mode_and_matches_array_path():
    grey = _texture(64, 72)
    img = Image.fromarray(np.round(grey * 255).astype(np.uint8), mode="L")
    out = D.degrade_image(img, "gaussian_blur", 2, 5)
    assert out.mode == "L" and out.size == img.size
    expected = D.degrade(np.asarray(img, dtype=np.float64) / 255, "gaussian_blur", 2, 5)
    assert np.array_equal(np.asarray(out), np.round(expected * 255).astype(np.uint8))
    assert D.degrade_image(img.convert("RGB"), "exposure", 1, 0).mode == "RGB"


@pytest.mark.parametrize(
    ("call", "error", "field"),
    [
        (lambda x: D.degrade(x, "blur", 1, 0), ValueError, "kind"),
        (lambda x: D.degrade(x, "exposure", 3, 0), ValueError, "level"),
        (lambda x: D.degrade(x, "exposure", True, 0), ValueError, "level"),
        (lambda x: D.degrade(x, "exposure", 1, -1), ValueError, "seed"),
        (lambda x: D.degrade(x, "exposure", 1, 1.5), TypeError, "seed"),
        (lambda x: D.degrade(x * 2, "exposure", 1, 0), ValueError, "[0, 1]"),
        (lambda x: D.degrade((x * 255).astype(np.uint8), "exposure", 1, 0), TypeError, "float32"),
        (lambda x: D.degrade(x[..., None].repeat(4, 2), "exposure", 1, 0), ValueError, "shape"),
        (lambda x: D.degrade(x[:4], "exposure", 1, 0), ValueError, "at least"),
        (lambda x: D.degrade(x.tolist(), "exposure", 1, 0), TypeError, "numpy"),
        (lambda x: D.degrade(x, "low_dose", 1, 0, ct_work_size=4), ValueError, "ct_work_size"),
        (lambda x: T.seed_for("", "exposure"), ValueError, "image_id"),
        (lambda x: T.choose_kinds("a", "CT", 0), ValueError, "n (types"),
        (lambda x: T.applicable_kinds(3), TypeError, "modality"),
        (lambda x: D.degrade_image(x, "exposure", 1, 0), TypeError, "img"),
    ],
)
def test_bad_arguments_name_the_field(call, error, field):
    with pytest.raises(error, match=field.replace("[", r"\[").replace("(", r"\(")):
        call(_texture(16, 16))


# ---------------------------------------------------------------- CT (spec 1-3)


@pytest.mark.parametrize("kind", ["limited_angle", "sparse_view"])
def test_ct_views_nested_and_worse_at_l2(kind):
    t1, t2 = (
        scanner_degradations.ct_angles(kind, 1, 11),
        scanner_degradations.ct_angles(kind, 2, 11),
    )
    assert len(t2) < len(t1)
    assert np.abs(t2[:, None] - t1[None, :]).min(axis=1).max() < 1e-9  # theta_L2 subset of theta_L1
    if kind == "limited_angle":
        assert len(t1) == 300 and len(t2) == 240  # 150 and 120 degrees every 0.5 degree
    else:
        assert len(t1) == 90 and len(t2) == 30
    x = _phantom(48)
    y1, y2 = _levels(x, kind, seed=11)
    assert _psnr(y2, x) < _psnr(y1, x)


def test_ct_work_size_downsamples_and_crops():
    x = _phantom(64)[:, 4:60]  # non-square: zero-padded to a centred square
    y = D.degrade(x, "sparse_view", 2, 1, ct_work_size=32)
    assert y.shape == x.shape and _psnr(y, x) < 40


def test_low_dose_noise_statistics():
    x = np.where(_phantom(64) > 0, 0.35, 0.3) + 0.1 * _texture(64, 64, 0, 1, smooth=4)
    y1, y2 = _levels(x, "low_dose", seed=4)
    keep = (y1 > 0) & (y1 < 1) & (y2 > 0) & (y2 < 1)
    r1, r2 = (y1 - x)[keep], (y2 - x)[keep]
    assert abs(r1.mean()) < 0.005 and abs(r2.mean()) < 0.005
    assert 1.6 <= r2.std() / r1.std() <= 2.4  # sqrt(I0_L1 / I0_L2) = 2
    assert _lag1(y1 - x) > 0.1 and _lag1(y2 - x) > 0.1  # FBP-correlated, not white


# ---------------------------------------------------------------- MRI (spec 4-6)


def test_bias_field_is_an_order3_log_polynomial_scaling_with_magnitude():
    h, w = 48, 64
    x = _texture(h, w, 0.1, 0.45)
    y1, y2 = _levels(x, "bias_field_artifact", seed=9)
    keep = (y1 < 1) & (y2 < 1) & (y1 > 0) & (x > 0.05)
    v, u = np.mgrid[0:h, 0:w]
    u = (u - w / 2 + 0.5) / (w / 2 - 0.5)
    v = (v - h / 2 + 0.5) / (h / 2 - 0.5)
    basis = np.stack([u[keep] ** a * v[keep] ** b for a in range(4) for b in range(4 - a)], axis=1)
    for y in (y1, y2):
        target = np.log(y[keep] / x[keep])
        coef, *_ = np.linalg.lstsq(basis, target, rcond=None)
        assert np.abs(basis @ coef - target).max() < 1e-6
    np.testing.assert_allclose(
        np.log(y2[keep] / x[keep]), 5 / 3 * np.log(y1[keep] / x[keep]), rtol=1e-9, atol=1e-12
    )


def test_undersampling_masks_nested_with_the_right_fraction():
    for seed in range(5):
        m1, m2 = (
            scanner_degradations.undersampling_mask(256, 1, seed),
            scanner_degradations.undersampling_mask(256, 2, seed),
        )
        assert np.all(m1[m2])  # M_L2 subset of M_L1
        assert abs(m1.mean() - 1 / 4) <= 0.08 and abs(m2.mean() - 1 / 8) <= 0.08
        centre = round(0.08 * 256)
        start = (256 - centre + 1) // 2
        assert m2[start : start + centre].all()
    x = _texture(64, 64)
    y1, y2 = _levels(x, "undersampling_artifact", seed=2)
    assert _psnr(y2, x) < _psnr(y1, x)


def test_ghosting_touches_only_modified_rows_and_scales_exactly():
    x = _texture(96, 64, 0.45, 0.55)  # narrow range: nothing clips; H divisible by n = 6
    y1, y2 = _levels(x, "ghosting_artifact")
    assert 0 < min(y1.min(), y2.min()) and max(y1.max(), y2.max()) < 1
    fx = np.fft.fftshift(np.fft.fft2(x))
    modified = np.zeros(96, dtype=bool)
    modified[::6] = True
    modified[48] = False  # the restored centre row
    for y in (y1, y2):
        changed = np.abs(np.fft.fftshift(np.fft.fft2(y)) - fx).max(axis=1) > 1e-8
        assert np.all(modified[changed]) and changed.any()
    assert np.linalg.norm(y2 - x) == pytest.approx(3 * np.linalg.norm(y1 - x), rel=1e-9)


# ---------------------------------------------------------------- pathology (spec 7, 8, 18)


def test_blood_cells_nested_and_reddening():
    g = _texture(128, 128, 0.5, 0.9)
    x = np.stack([g * 0.9, g * 0.7, g * 0.85], axis=2)
    y1, y2 = _levels(x, "blood_cell_artifact", seed=3)
    changed1 = np.abs(y1 - x).max(axis=2) > 1e-6
    changed2 = np.abs(y2 - x).max(axis=2) > 1e-6
    assert changed1.any() and np.all(changed2[changed1])
    rg = [float((a[..., 0] - a[..., 1]).mean()) for a in (x, y1, y2)]
    assert rg[0] < rg[1] < rg[2]


def test_dark_spots_only_darken():
    x = _texture(64, 80, 0.0, 1.0)
    y1, y2 = _levels(x, "dark_spots_artifact", seed=5)
    bright = x >= 0.12
    assert np.all(y1[bright] <= x[bright] + 1e-12) and np.all(y2[bright] <= x[bright] + 1e-12)
    assert x.mean() > y1.mean() > y2.mean()


def test_bubble_leaves_the_outside_untouched():
    h, w, seed = 64, 80, 6
    x = _texture(h, w, 0.0, 1.0, smooth=1)
    cy, cx = np.random.default_rng(seed).uniform(0.3, 0.7, 2) * (h, w)
    d = np.hypot(*(np.mgrid[0:h, 0:w] - np.array([cy, cx])[:, None, None]))
    for level in (1, 2):
        y = D.degrade(x, "bubble", level, seed)
        r = T.PARAMS["bubble"][level]["rho"] * min(h, w)
        far, inside = d > r + 0.05 * min(h, w), d < r - 2
        assert np.abs(y - x)[far].max() < 1e-3
        assert np.abs(y - x)[inside].mean() > 1e-3


# ---------------------------------------------------------------- motion (spec 9, 10)


def test_rotation_blacks_corners_and_grows_with_level():
    x = _texture(64, 64, 0.3, 1.0)
    y1, y2 = _levels(x, "object_rotation", seed=1)
    for y in (y1, y2):
        assert y[0, 0] == y[0, -1] == y[-1, 0] == y[-1, -1] == 0
    assert np.abs(y2 - x).mean() > np.abs(y1 - x).mean()


def test_movement_keeps_segment0_kspace_and_grows_with_level():
    x = _texture(64, 64)
    seed = 12
    t1 = np.arange(1, 3) / 3 + np.random.default_rng(seed).uniform(-0.1, 0.1, 2)
    segment0 = int(np.floor(t1[0] * 64))
    fx = np.fft.fftshift(np.fft.fft2(x))
    norms = []
    for level in (1, 2):
        phase = image_degradations.movement_phase((64, 64), level, seed)
        assert np.all(phase[:segment0] == 1) and np.allclose(np.abs(phase), 1)
        before_clip = np.fft.ifft2(np.fft.ifftshift(fx * phase))
        # before the real part is taken, segment-0 rows of k-space are unchanged (spec 10)
        np.testing.assert_allclose(
            np.fft.fftshift(np.fft.fft2(before_clip))[:segment0], fx[:segment0], atol=1e-9
        )
        y = D.degrade(x, "object_movement", level, seed)
        np.testing.assert_array_equal(y, np.clip(before_clip.real, 0, 1))
        norms.append(np.linalg.norm(y - x))
    assert norms[1] > norms[0] > 0


# ---------------------------------------------------------------- intensity (spec 11-13)


def test_brightness_is_an_exact_shift():
    x = _texture(64, 64, 0.0, 1.0)
    for level in (1, 2):
        delta = T.PARAMS["adjust_brightness"][level]["delta"]
        y = D.degrade(x, "adjust_brightness", level, 0)
        keep = x >= abs(delta)
        assert np.array_equal(y[keep], x[keep] + delta)
        assert np.all(y[~keep] == 0)


def test_exposure_is_a_monotone_darkening_curve():
    x = np.linspace(0, 1, 4096).reshape(64, 64)
    for level in (1, 2):
        y = D.degrade(x, "exposure", level, 0).ravel()
        assert np.all(np.diff(y) >= 0) and np.all(y <= x.ravel())


def test_contrast_keeps_the_mean_and_scales_the_std():
    g = _texture(64, 64, 0.0, 1.0)
    x = np.stack([g, g**2, 1 - g], axis=2)
    for level in (1, 2):
        c = T.PARAMS["reduce_contrast"][level]["c"]
        y = D.degrade(x, "reduce_contrast", level, 0)
        np.testing.assert_allclose(y.mean(axis=(0, 1)), x.mean(axis=(0, 1)), atol=1e-6)
        np.testing.assert_allclose(y.std(axis=(0, 1)), c * x.std(axis=(0, 1)), rtol=1e-9)


# ---------------------------------------------------------------- noise, resolution, blur (spec
# 14-17)


def test_gaussian_noise_level_whiteness_and_nesting():
    x = np.full((128, 128, 3), 0.5)
    y1, y2 = _levels(x, "gaussian_noise", seed=8)
    for y, sigma in ((y1, 0.05), (y2, 0.08)):
        r = y - x
        assert abs(r.std() / sigma - 1) < 0.05
        assert abs(_lag1(r[..., 0])) < 0.05
        assert (
            abs(np.corrcoef(r[..., 0].ravel(), r[..., 1].ravel())[0, 1]) < 0.05
        )  # independent channels
    keep = (y2 > 0) & (y2 < 1) & (y1 > 0) & (y1 < 1)
    np.testing.assert_allclose(
        (y2 - x)[keep] / 0.08, (y1 - x)[keep] / 0.05, atol=1e-9
    )  # one noise field


def test_low_resolution_blocks_at_l2():
    x = _texture(64, 64, 0.0, 1.0, smooth=1)
    y1, y2 = _levels(x, "low_resolution")
    blocks = y2.reshape(4, 16, 4, 16)
    assert np.all(blocks == blocks[:, :1, :, :1])
    np.testing.assert_allclose(
        blocks[:, 0, :, 0], x.reshape(4, 16, 4, 16).mean(axis=(1, 3)), atol=1e-6
    )
    assert _psnr(y2, x) < _psnr(y1, x)


def test_motion_blur_is_directional_and_mean_preserving():
    x = _texture(128, 128, 0.2, 0.8, smooth=1)
    seed = 21
    phi = np.deg2rad(np.random.default_rng(seed).uniform(0.0, 180.0))
    along_x, across_x = _directional_energy(x, phi)
    for level in (1, 2):
        y = D.degrade(x, "motion_blur", level, seed)
        assert abs(y.mean() / x.mean() - 1) < 0.005
        along_y, across_y = _directional_energy(y, phi)
        assert along_y / along_x < across_y / across_x


def _directional_energy(a: np.ndarray, phi: float) -> tuple[float, float]:
    gy, gx = np.gradient(
        a
    )  # rows grow downwards: the direction phi is (cos phi, -sin phi) in (x, row)
    along = gx * np.cos(phi) - gy * np.sin(phi)
    across = gx * np.sin(phi) + gy * np.cos(phi)
    return float((along[4:-4, 4:-4] ** 2).sum()), float((across[4:-4, 4:-4] ** 2).sum())


@pytest.mark.parametrize("length", [5, 6])
def test_fft_convolution_equals_ndimage_reflect(length):
    x = _texture(40, 56)
    k = image_degradations.motion_kernel(length, 33.0)
    assert k.shape == (length + 2, length + 2) and k.sum() == pytest.approx(1)
    np.testing.assert_allclose(
        image_degradations._convolve_reflect(x, k),
        ndimage.convolve(x, k, mode="reflect"),
        atol=1e-12,
    )


def test_gaussian_blur_smooths_and_keeps_the_mean():
    x = _texture(64, 64, 0.0, 1.0, smooth=1)
    energies = [float((ndimage.laplace(a) ** 2).sum()) for a in (x, *_levels(x, "gaussian_blur"))]
    assert energies[0] > energies[1] > energies[2]
    for level in (1, 2):
        assert abs(D.degrade(x, "gaussian_blur", level, 0).mean() / x.mean() - 1) < 0.005
