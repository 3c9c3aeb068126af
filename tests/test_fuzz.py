"""Property-based tests of the public constructors (issue 25, item 4): random valid
sections, rods, curves, loads, supports and settings within their documented ranges are
accepted with finite values; random invalid values (wrong types, shapes, NaN/inf, out of
range) raise ``ParameterError`` naming the parameter, never another exception type. No
form is compiled here (the constructors check before any form exists): a few hundred
examples in the default tier, more in the slow tier (``FXROD_FUZZ_EXAMPLES``)."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fxrod.core.geometry import Arc, Helix, Straight
from fxrod.core.loads import DistributedLoad, EndLoad, Gravity
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp, Hinge, Pin
from fxrod.errors import ParameterError
from fxrod.solvers.settings import SolverSettings

EXAMPLES = int(os.environ.get("FXROD_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])

SECTION_FIELDS = ("rhoA", "M11", "M22", "k_s1", "k_s2", "k_e", "k_b1", "k_b2", "k_t")
positive = st.floats(1e-6, 1e12)
nonnegative = st.one_of(st.just(0.0), positive)
#: Values no number parameter accepts: wrong types, shapes, NaN and infinities.
not_a_number = st.one_of(
    st.text(max_size=4), st.booleans(), st.none(), st.just(float("nan")),
    st.just(float("inf")), st.just(-float("inf")), st.lists(st.floats(), min_size=1,
                                                           max_size=2),
    st.just(np.array([1.0, 2.0])), st.just(1 + 2j), st.just(object()))
vec3 = st.lists(st.floats(-1e3, 1e3), min_size=3, max_size=3)
bad_vec3 = st.one_of(
    st.lists(st.floats(-1e3, 1e3), min_size=0, max_size=2),
    st.lists(st.floats(-1e3, 1e3), min_size=4, max_size=5),
    st.lists(st.sampled_from([float("nan"), float("inf")]), min_size=3, max_size=3),
    st.text(max_size=3), st.just(np.zeros((3, 3))), st.just(None), st.just(object()))


def valid_section_values():
    return st.fixed_dictionaries({**{k: nonnegative for k in SECTION_FIELDS[:3]},
                                  **{k: positive for k in SECTION_FIELDS[3:]}})


def raises_naming(name: str, make, *args, **kwargs) -> ParameterError:
    """``make(*args, **kwargs)`` raises a ParameterError whose name contains ``name`` and
    whose message is one line without NumPy reprs."""
    with pytest.raises(ParameterError) as ei:
        make(*args, **kwargs)
    assert name in ei.value.name, (ei.value.name, name)
    msg = str(ei.value)
    assert "\n" not in msg and "np.float64" not in msg and "array(" not in msg, msg
    return ei.value


@FUZZ
@given(valid_section_values())
def test_valid_sections_are_kept_as_floats(values):
    s = Section(**values)
    assert all(isinstance(getattr(s, k), float | int) and math.isfinite(getattr(s, k))
               for k in SECTION_FIELDS)
    assert np.all(s.stiffness > 0)


@FUZZ
@given(valid_section_values(), st.sampled_from(SECTION_FIELDS), not_a_number)
def test_invalid_section_values_name_the_field(values, field, bad):
    raises_naming(field, Section, **{**values, field: bad})


@FUZZ
@given(valid_section_values(), st.sampled_from(SECTION_FIELDS[3:]), st.floats(-1e6, 0.0))
def test_non_positive_stiffness_is_refused(values, field, bad):
    raises_naming(field, Section, **{**values, field: bad})


@FUZZ
@given(positive, positive, nonnegative, st.floats(-0.99, 0.49))
def test_circular_sections_from_material_data(radius, E, rho, nu):
    s = Section.circular(radius, E, rho, nu=nu)
    assert np.all(np.isfinite(s.stiffness)) and s.rhoA >= 0.0


@FUZZ
@given(st.sampled_from(["radius", "E", "rho", "nu"]), not_a_number)
def test_circular_section_names_the_bad_value(name, bad):
    kw = {"radius": 0.01, "E": 1e9, "rho": 1e3, "nu": 0.3, name: bad}
    raises_naming(name, Section.circular, kw.pop("radius"), kw.pop("E"), kw.pop("rho"), **kw)


@FUZZ
@given(vec3, vec3, st.integers(1, 500), st.sampled_from([(), ("kirchhoff",)]))
def test_straight_rods(start, d, n, constraints):
    end = np.add(start, d)
    length = float(np.linalg.norm(d))
    d1 = np.cross(d, [1.0, 0.0, 0.0] if abs(d[0]) < 0.9 * length else [0.0, 1.0, 0.0])
    section = Section(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
    try:
        rod = Rod(section, start, tuple(end), tuple(d1), n_elements=n, constraints=constraints)
    except ParameterError as e:      # degenerate: zero length or a d1 that is not normal
        assert e.name in ("length", "d1", "end"), e.name
        return
    assert rod.length == pytest.approx(length, rel=1e-12, abs=1e-12)
    assert np.allclose(rod.frame.T @ rod.frame, np.eye(3), atol=1e-12)


@FUZZ
@given(st.sampled_from(["section", "n_elements", "start", "end", "d1", "constraints",
                        "curve", "natural_curvature"]),
       st.one_of(not_a_number, st.integers(-5, 0)))
def test_invalid_rod_arguments_name_the_parameter(name, bad):
    kw = {"section": Section(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0),
          "start": (0.0, 0.0, 0.0), "end": (1.0, 0.0, 0.0), "d1": (0.0, 1.0, 0.0),
          "n_elements": 4, name: bad}
    if name == "curve":
        if bad is None:
            return                     # None is the default: start/end/d1 give the line
        kw.update(start=None, end=None, d1=None)
    if name == "constraints" and (bad is None or isinstance(bad, list) and not bad):
        return                         # None and [] mean no constraint
    if name == "natural_curvature" and bad is None:
        return                         # the default: no natural curvature
    if name in ("start", "end", "d1") and bad is None:
        name = "curve"                 # without start, end and d1 a curve is required
    if name in ("start", "end", "d1") and isinstance(bad, list) and len(bad) == 3 and \
            np.all(np.isfinite(bad)):
        return                         # a 3-vector: valid or not depending on the others
    raises_naming(name, Rod, **kw)


@FUZZ
@given(positive.filter(lambda r: r < 1e6), st.floats(1e-3, 2 * math.pi),
       st.floats(-1e3, 1e3), st.floats(0.1, 20.0))
def test_arcs_and_helices(radius, angle, pitch, turns):
    arc = Arc(radius, angle)
    assert arc.length == pytest.approx(radius * angle, rel=1e-12)
    helix = Helix(radius, pitch, turns)
    assert helix.length == pytest.approx(turns * math.hypot(2 * math.pi * radius, pitch),
                                         rel=1e-9)


@FUZZ
@given(st.sampled_from(["radius", "angle"]), st.one_of(not_a_number, st.floats(-10, 0),
                                                      st.floats(7.0, 100.0)))
def test_invalid_arc_names_the_parameter(name, bad):
    if name == "radius" and isinstance(bad, float) and bad > 0:
        return                                     # any positive radius is valid
    kw = {"radius": 1.0, "angle": 1.0, name: bad}
    raises_naming(name, Arc, **kw)


@FUZZ
@given(st.sampled_from(["start", "end", "d1"]), bad_vec3)
def test_invalid_straight_names_the_vector(name, bad):
    kw = {"start": (0.0, 0.0, 0.0), "end": (1.0, 0.0, 0.0), "d1": (0.0, 1.0, 0.0), name: bad}
    raises_naming(name, Straight, **kw)


@FUZZ
@given(vec3, vec3, st.booleans(), st.sampled_from(["0", "L"]))
def test_loads_accept_vectors_and_functions(f, m, follower, end):
    load = EndLoad(end, force=f, moment=lambda t: np.multiply(m, t), follower=follower)
    assert np.allclose(load.force(0.3), f) and np.allclose(load.moment(0.5), np.multiply(m, 0.5))
    DistributedLoad(force=f)
    assert np.allclose(Gravity(f).g(0.3), f)
    assert np.allclose(Gravity(lambda t: np.multiply(f, t)).g(0.5), np.multiply(f, 0.5))


@FUZZ
@given(st.sampled_from(["force", "moment", "g"]), bad_vec3)
def test_invalid_load_vectors_name_the_parameter(name, bad):
    if name == "g":
        raises_naming("g", Gravity, bad)
    elif bad is not None:
        raises_naming(name, EndLoad, "L", **{name: bad})


@FUZZ
@given(st.one_of(st.text(max_size=3), st.integers(), st.none(), st.just(np.array([1, 2]))))
def test_invalid_support_end_and_axis(bad):
    if bad in ("0", "L") if isinstance(bad, str) else False:
        return
    for make in (Clamp, Pin):
        raises_naming("end", make, bad)
    if not (isinstance(bad, str) and bad in ("d1", "d2", "d3")):
        raises_naming("axis", Hinge, "0", axis=bad)


@FUZZ
@given(st.fixed_dictionaries({
    "atol": positive, "rtol": positive, "stol": nonnegative,
    "max_it": st.integers(1, 100), "jacobian_lag": st.integers(1, 20),
    "linesearch": st.sampled_from(["basic", "bt", "l2", "cp"]),
    "predictor": st.sampled_from(["extrapolate", "plain"]), "adaptive": st.booleans(),
    "grow_after": st.integers(1, 10)}))
def test_valid_settings(values):
    s = SolverSettings(**values)
    assert s.replace(adaptive=not s.adaptive).adaptive is not s.adaptive


@FUZZ
@given(st.sampled_from(["atol", "rtol", "stol", "max_it", "jacobian_lag", "grow_after",
                        "linesearch", "predictor", "h_min", "mumps_icntl"]),
       st.one_of(not_a_number, st.integers(-3, 0), st.floats(-1.0, 0.0)))
def test_invalid_settings_name_the_field(name, bad):
    if name == "stol" and isinstance(bad, float) and bad == 0.0:
        return
    if name == "h_min" and bad is None:
        return
    if name == "stol" and isinstance(bad, int) and not isinstance(bad, bool) and bad == 0:
        return
    raises_naming(name, SolverSettings, **{name: bad})


def test_messages_show_plain_numbers():
    err = raises_naming("k_e", Section, 1.0, 1.0, 1.0, 1.0, 1.0, np.float64(-1.0), 1.0, 1.0, 1.0)
    assert "-1.0" in str(err)
    raises_naming("rhoA", Section, "1", 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)


@pytest.mark.slow
def test_fuzz_more_examples():
    """The same properties with 20 times the examples (subprocess: hypothesis settings are
    fixed at import)."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    env = dict(os.environ, FXROD_FUZZ_EXAMPLES=str(20 * EXAMPLES))
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-m", "not slow",
                        "tests/test_fuzz.py"], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=3600)
    assert p.returncode == 0, p.stdout[-3000:]
