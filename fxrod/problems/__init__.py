"""The data and read-outs of ready problems that several places need: the paper's solver
settings and sections, the soft arm's and the tendon hook's parameters, inputs and closed
forms, and the tables, reference solutions and read-outs the demos share with the tests. The
problems themselves are built in plain sight in the demos (``demos/<name>.py``)."""
