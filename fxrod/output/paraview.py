"""ParaView output: a ``.pvd`` collection of ``.vtp`` polylines, one per stored time.

Why this format: the rod's mesh is a 1D interval in the arc-length coordinate s, while the
picture must show the deformed centreline ``phi(s, t)`` in 3D. VTX/XDMF would write the
fields on the undeformed 1D mesh (ParaView would need a "warp" with 12-component data);
a polyline per time with the centreline as geometry, the directors as point vectors and
the stresses N, M as cell data opens directly in ParaView. The collection file is rewritten
after every frame (temporary file, then rename), so an interrupted run leaves a readable
series; a frame that cannot be written raises :class:`fxrod.errors.OutputError`, leaves no
temporary file and keeps the collection of the frames before it. Only rank 0 writes.

Surfaces (the rigid obstacles of contact) are written as triangulated ``.vtp`` PolyData
(:func:`write_vtp` with ``polys``); :func:`plane_patch`, :func:`sphere_surface` and
:func:`cylinder_surface` triangulate the primitive shapes, in metres.
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


def write_vtp(path, points: np.ndarray, point_data: dict, cell_data: dict,
              polys: np.ndarray | None = None) -> None:
    """Write VTK XML PolyData: one polyline through the points in order (its segments are
    the cells), or, with ``polys`` (an ``(m, 3)`` array of point indices), a triangulated
    surface (the triangles are the cells)."""
    pts = np.asarray(points, dtype=float)
    n = len(pts)
    if polys is None:
        cells = np.column_stack([np.arange(n - 1), np.arange(1, n)])
        kind, counts = "Lines", f'NumberOfLines="{n - 1}" NumberOfPolys="0"'
    else:
        cells = np.asarray(polys, dtype=np.int64).reshape(-1, 3)
        kind, counts = "Polys", f'NumberOfLines="0" NumberOfPolys="{len(cells)}"'
    conn = " ".join(str(int(i)) for i in cells.reshape(-1))
    offs = " ".join(str(int(k)) for k in cells.shape[1] * np.arange(1, len(cells) + 1))
    pd = "".join(_data_array(k, v) for k, v in point_data.items())
    cd = "".join(_data_array(k, v) for k, v in cell_data.items())
    xml = (
        '<?xml version="1.0"?>\n<VTKFile type="PolyData" version="0.1" byte_order="LittleEndian">'
        f'<PolyData><Piece NumberOfPoints="{n}" NumberOfVerts="0" {counts} '
        'NumberOfStrips="0">'
        f"<Points>{_data_array('Points', pts)}</Points>"
        f"<PointData>{pd}</PointData><CellData>{cd}</CellData>"
        f'<{kind}><DataArray type="Int64" Name="connectivity" format="ascii">'
        f'{conn}</DataArray><DataArray type="Int64" Name="offsets" format="ascii">{offs}'
        f"</DataArray></{kind}></Piece></PolyData></VTKFile>\n"
    )
    Path(path).write_text(xml)


def _frame(axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors orthogonal to the unit vector ``axis`` and to each other."""
    helper = np.eye(3)[int(np.argmin(np.abs(axis)))]
    e1 = np.cross(axis, helper)
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(axis, e1)


def _grid_triangles(n_u: int, n_v: int, periodic_v: bool) -> np.ndarray:
    """Triangles of a structured ``n_u x n_v`` point grid (row-major), closed in v if
    ``periodic_v``."""
    tris = []
    for i in range(n_u - 1):
        for j in range(n_v if periodic_v else n_v - 1):
            a, b = i * n_v + j, i * n_v + (j + 1) % n_v
            c, d = a + n_v, b + n_v
            tris += [(a, b, d), (a, d, c)]
    return np.array(tris, dtype=np.int64)


def plane_patch(point, normal, half_width: float, n: int = 2):
    """A square patch of a plane: centre ``point`` [m], unit ``normal``, half-width
    ``half_width`` [m], ``n x n`` points. Returns ``(points (n^2, 3), triangles (m, 3))``."""
    normal = np.asarray(normal, dtype=float)
    e1, e2 = _frame(normal / np.linalg.norm(normal))
    u = np.linspace(-half_width, half_width, n)
    U, V = np.meshgrid(u, u, indexing="ij")
    pts = np.asarray(point, float) + U.reshape(-1, 1) * e1 + V.reshape(-1, 1) * e2
    return pts, _grid_triangles(n, n, False)


def sphere_surface(centre, radius: float, n: int = 24):
    """A sphere of ``radius`` [m] about ``centre`` [m]: ``n`` latitude rings between the
    poles, ``2 n`` points a ring; every point lies on the sphere. Returns ``(points,
    triangles)``."""
    theta = np.linspace(0.0, np.pi, n + 2)[1:-1]
    phi = np.linspace(0.0, 2 * np.pi, 2 * n, endpoint=False)
    T, P = np.meshgrid(theta, phi, indexing="ij")
    ring = np.stack([np.sin(T) * np.cos(P), np.sin(T) * np.sin(P), np.cos(T)], -1)
    unit = np.vstack([ring.reshape(-1, 3), [[0, 0, 1], [0, 0, -1]]])
    tris = [_grid_triangles(n, 2 * n, True)]
    top, bottom, m = n * 2 * n, n * 2 * n + 1, 2 * n
    tris.append(np.array([(top, (j + 1) % m, j) for j in range(m)]))
    last = (n - 1) * m
    tris.append(np.array([(bottom, last + j, last + (j + 1) % m) for j in range(m)]))
    return np.asarray(centre, float) + radius * unit, np.vstack(tris)


def cylinder_surface(point, axis, radius: float, length: float, n: int = 48,
                     caps: bool = False):
    """The mantle of a circular cylinder: axis through ``point`` [m] (the middle) along the
    unit ``axis``, ``radius`` and ``length`` [m], ``n`` points a ring; with ``caps`` the
    two flat end discs. Every point lies on the cylinder. Returns ``(points, triangles)``."""
    axis = np.asarray(axis, dtype=float)
    axis = axis / np.linalg.norm(axis)
    e1, e2 = _frame(axis)
    phi = np.linspace(0.0, 2 * np.pi, n, endpoint=False)
    ring = radius * (np.cos(phi)[:, None] * e1 + np.sin(phi)[:, None] * e2)
    p = np.asarray(point, dtype=float)
    ends = [p - 0.5 * length * axis, p + 0.5 * length * axis]
    pts = np.vstack([ends[0] + ring, ends[1] + ring])
    tris = [_grid_triangles(2, n, True)]
    if caps:
        pts = np.vstack([pts, ends])
        c0, c1 = 2 * n, 2 * n + 1
        tris.append(np.array([(c0, (j + 1) % n, j) for j in range(n)]))
        tris.append(np.array([(c1, n + j, n + (j + 1) % n) for j in range(n)]))
    return pts, np.vstack(tris)


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
              cell_data: dict | None = None, polys: np.ndarray | None = None) -> None:
        """Add the frame at time t [s] and rewrite the collection file (a polyline, or the
        triangulated surface ``polys``, see :func:`write_vtp`).

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
            write_vtp(target, points, point_data or {}, cell_data or {}, polys)
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
