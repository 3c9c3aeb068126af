"""Output primitives shared by every formulation: CSV tables with their SI units
(:mod:`fxrod.output.tables`), recorded time series (:mod:`fxrod.output.history`) and ParaView
files (:mod:`fxrod.output.paraview`)."""
