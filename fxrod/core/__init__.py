"""The mechanics of the discrete rod: kinematics, spaces, geometry, rods and sections, loads,
supports, joints, structures, obstacles, the weak-form terms (:mod:`fxrod.core.forms`), the
energy ledger and the model that owns the system and its step."""
