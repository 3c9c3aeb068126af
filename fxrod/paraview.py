"""ParaView output: a ``.pvd`` collection of ``.vtp`` polylines, one per stored time.

Why this format: the rod's mesh is a 1D interval in the arc-length coordinate s, while the
picture must show the deformed centreline ``phi(s, t)`` in 3D. VTX/XDMF would write the
fields on the undeformed 1D mesh (ParaView would need a "warp" with 12-component data);
a polyline per time with the centreline as geometry, the directors as point vectors and
the stresses N, M as cell data opens directly in ParaView. The collection file is rewritten
after every frame (temporary file, then rename), so an interrupted run leaves a readable
series; a frame that cannot be written raises :class:`fxrod.errors.OutputError`, leaves no
temporary file and keeps the collection of the frames before it. Only rank 0 writes.
"""

from __future__ import annotations

import os
from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np

from fxrod.errors import OutputError


def sample_p2_curve(s_nodes: np.ndarray, q_nodes: np.ndarray, per_element: int = 8):
    """Sample the P2 interpolant of nodal data along the rod.

    Parameters
    ----------
    s_nodes : (2 n_e + 1,) array
        Sorted nodal arc lengths (vertices and midpoints alternate).
    q_nodes : (2 n_e + 1, k) array
        Nodal values.
    per_element : int
        Sub-segments per element.

    Returns
    -------
    s, values : arrays of shape (n_e per_element + 1,) and (.., k)
    """
    n_e = (len(s_nodes) - 1) // 2
    xi = np.linspace(0.0, 1.0, per_element + 1)[:-1]
    N = np.stack([2 * (xi - 0.5) * (xi - 1), -4 * xi * (xi - 1), 2 * xi * (xi - 0.5)], axis=1)
    s_out, v_out = [], []
    for e in range(n_e):
        idx = [2 * e, 2 * e + 1, 2 * e + 2]
        s_out.append(N @ s_nodes[idx])
        v_out.append(N @ q_nodes[idx])
    s_out.append(s_nodes[-1:])
    v_out.append(q_nodes[-1:])
    return np.concatenate(s_out), np.concatenate(v_out)


def sample_dg1(values: np.ndarray, per_element: int = 8) -> np.ndarray:
    """Sample element-wise linear (DG1) data at the points of :func:`sample_p2_curve`.

    ``values`` holds the element-end values, ``(2 n_e, k)``: rows ``2e`` (start) and
    ``2e + 1`` (end) of element e, in element order. The point at an element's start takes
    that element's value; the last point takes the last element's end value.
    """
    v = np.asarray(values, dtype=float)
    start, end = v[0::2], v[1::2]
    xi = np.linspace(0.0, 1.0, per_element + 1)[:-1]
    out = start[:, None, :] + xi[None, :, None] * (end - start)[:, None, :]
    return np.concatenate([out.reshape(-1, v.shape[1]), end[-1:]])


def _data_array(name: str, a: np.ndarray) -> str:
    a = np.asarray(a, dtype=float)
    ncomp = 1 if a.ndim == 1 else a.shape[1]
    vals = " ".join(repr(float(x)) for x in a.reshape(-1))
    return (f'<DataArray type="Float64" Name="{name}" NumberOfComponents="{ncomp}" '
            f'format="ascii">{vals}</DataArray>')


def write_vtp(path, points: np.ndarray, point_data: dict, cell_data: dict) -> None:
    """Write one polyline (points in order) as VTK XML PolyData; cells are its segments."""
    pts = np.asarray(points, dtype=float)
    n = len(pts)
    conn = " ".join(str(i) for j in range(n - 1) for i in (j, j + 1))
    offs = " ".join(str(2 * (j + 1)) for j in range(n - 1))
    pd = "".join(_data_array(k, v) for k, v in point_data.items())
    cd = "".join(_data_array(k, v) for k, v in cell_data.items())
    xml = (
        '<?xml version="1.0"?>\n<VTKFile type="PolyData" version="0.1" byte_order="LittleEndian">'
        f'<PolyData><Piece NumberOfPoints="{n}" NumberOfVerts="0" NumberOfLines="{n - 1}" '
        'NumberOfStrips="0" NumberOfPolys="0">'
        f"<Points>{_data_array('Points', pts)}</Points>"
        f"<PointData>{pd}</PointData><CellData>{cd}</CellData>"
        '<Lines><DataArray type="Int64" Name="connectivity" format="ascii">'
        f'{conn}</DataArray><DataArray type="Int64" Name="offsets" format="ascii">{offs}'
        "</DataArray></Lines></Piece></PolyData></VTKFile>\n"
    )
    Path(path).write_text(xml)


class PVDWriter:
    """Time series of rod centrelines for ParaView (``DIR/NAME.pvd`` + ``DIR/NAME/*.vtp``).

    Parameters
    ----------
    directory : path-like
        Output directory.
    name : str
        Base name of the collection.
    active : bool
        Whether this process writes (rank 0).
    resume_until : float, optional
        Continue an existing collection: keep its frames up to this time [s] (a restarted
        run), the later ones are overwritten.
    """

    def __init__(self, directory, name: str, active: bool = True,
                 resume_until: float | None = None) -> None:
        self.dir = Path(directory)
        self.name = name
        self.active = active
        self.entries: list[tuple[float, str]] = []
        if active:
            (self.dir / name).mkdir(parents=True, exist_ok=True)
            if resume_until is not None and self.path.exists():
                self.entries = [(t, f) for t, f in pvd_entries(self.path)
                                if t <= resume_until * (1 + 1e-12) + 1e-14]

    @property
    def path(self) -> Path:
        return self.dir / f"{self.name}.pvd"

    def write(self, t: float, points, point_data: dict | None = None,
              cell_data: dict | None = None) -> None:
        """Add the frame at time t [s] and rewrite the collection file.

        Raises
        ------
        fxrod.errors.OutputError
            If the frame or the collection cannot be written (the collection keeps the
            frames before this one; no temporary file is left).
        """
        if not self.active:
            return
        rel = f"{self.name}/{self.name}_{len(self.entries):06d}.vtp"  # overwrites stale frames
        entries = [*self.entries, (float(t), rel)]
        ds = "".join(f'<DataSet timestep="{t!r}" part="0" file={quoteattr(f)}/>'
                     for t, f in entries)
        tmp = self.path.with_suffix(".pvd.tmp")
        target = self.dir / rel
        try:
            write_vtp(target, points, point_data or {}, cell_data or {})
            target = tmp
            tmp.write_text('<?xml version="1.0"?>\n<VTKFile type="Collection" version="0.1">'
                           f"<Collection>{ds}</Collection></VTKFile>\n")
            target = self.path
            tmp.replace(self.path)
        except OSError as e:
            for leftover in (tmp, self.dir / rel):   # nothing half-written stays
                try:
                    leftover.unlink(missing_ok=True)
                except OSError:
                    pass
            raise OutputError(target, e) from None
        self.entries = entries

    def close(self) -> None:
        """Nothing is held open; provided for symmetry with other writers."""


def pvd_entries(path: str | os.PathLike) -> list[tuple[float, str]]:
    """The frames of a ``.pvd`` collection: ``(time, file)`` in file order, ``file`` relative
    to the collection's directory.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If ``path`` is not a VTK collection file.
    """
    import xml.etree.ElementTree as ET

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such ParaView collection: {path}")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as err:
        raise ValueError(f"{path}: not a ParaView .pvd collection ({err})") from None
    if root.tag != "VTKFile" or root.get("type") != "Collection":
        raise ValueError(f"{path}: not a ParaView .pvd collection")
    return [(float(e.get("timestep")), e.get("file")) for e in root.iter("DataSet")]


def read_pvd(path: str | os.PathLike, field: str | None = None
             ) -> list[tuple[float, np.ndarray]]:
    """Read a series of centrelines back: ``(t, points)`` per frame, in file order.

    Parameters
    ----------
    path : path-like
        A ``.pvd`` collection (as written by :class:`PVDWriter`) of ``.vtp`` polylines.
    field : str, optional
        Return this point-data array (e.g. the director ``"d3"``) instead of the points.

    Returns
    -------
    list of (float, ndarray)
        Time [s] (a load factor in statics) and the ``(n_pts, 3)`` polyline points [m] (or
        the ``field`` values) of every frame.
    """
    import pyvista as pv

    path = Path(path)
    out = []
    for t, f in pvd_entries(path):
        mesh = pv.read(path.parent / f)
        out.append((t, np.asarray(mesh.points if field is None else mesh.point_data[field],
                                  dtype=float)))
    return out
