"""From described operands to the library's GemmProblem.

The library computes C = alpha * op(A) * op(B) + beta * C with one storage order for all three
matrices. The problem takes C's order; an operand stored in the other order is, read in C's
order, its own transpose, so its transpose flag is flipped (an F-contiguous A under a
C-contiguous C is A^T stored row-major). Leading dimensions are the operands' own, offsets
the device operands' positions in their buffers. Sizes and leading dimensions are checked by
the library; here only that the shapes agree.

:func:`refuse_unavailable` is the one place that turns away what the Python API already
accepts but the library cannot run yet: stacks of matrices (3-D operands) and epilogues.
"""

from . import _clgemm

_LAYOUT = {"C": 101, "F": 102}  # CBLAS RowMajor, ColumnMajor


def product_sizes(a, b, trans_a, trans_b):
    """(M, N, K) of op(A) (M x K) times op(B) (K x N); ValueError when the inner sizes differ."""
    m, k = (a.cols, a.rows) if trans_a else (a.rows, a.cols)
    k_b, n = (b.cols, b.rows) if trans_b else (b.rows, b.cols)
    if k != k_b:
        op_a = "a.T" if trans_a else "a"
        op_b = "b.T" if trans_b else "b"
        raise ValueError(f"{op_a} is {m} x {k} but {op_b} is {k_b} x {n}: "
                         f"the columns of {op_a} must match the rows of {op_b}")
    return m, n, k


def product_batch(*matrices):
    """The stack length the 3-D operands share (None when all are 2-D); ValueError otherwise."""
    stacks = {x.name: x.batch for x in matrices if x is not None and x.batch is not None}
    if len(set(stacks.values())) > 1:
        listed = ", ".join(f"{name} holds {batch}" for name, batch in stacks.items())
        raise ValueError(f"the stacks of matrices differ in length: {listed}")
    return next(iter(stacks.values()), None)


def check_result_shape(c, m, n, batch):
    """ValueError unless the given C is m x n (a stack of `batch` of them for 3-D operands)."""
    expected = (m, n) if batch is None else (batch, m, n)
    actual = (c.rows, c.cols) if c.batch is None else (c.batch, c.rows, c.cols)
    if actual != expected:
        raise ValueError(f"c has shape {actual}, but the product is {expected}")


def refuse_unavailable(batch, epilogue):
    """NotImplementedError for what this version of the library cannot run yet."""
    missing = []
    if batch is not None:
        missing.append("batched products (3-D operands: call sgemm once per matrix)")
    if epilogue.bias is not None:
        missing.append("a fused bias (bias=: add it to the result with NumPy or PyOpenCL)")
    if epilogue.activation != "none":
        missing.append(f"a fused activation (act={epilogue.activation!r})")
    if missing:
        raise NotImplementedError("clgemm " + _clgemm.version() + " does not support "
                                  + "; ".join(missing) + " yet")


def gemm_problem(a, b, c, m, n, k, alpha, beta, trans_a, trans_b):
    """The GemmProblem for these described operands (see the module's docstring)."""
    order = "C" if "C" in c.orders else "F"
    problem = _clgemm.GemmProblem()
    problem.layout = _LAYOUT[order]
    problem.m, problem.n, problem.k = m, n, k
    problem.alpha, problem.beta = alpha, beta
    for matrix, trans in ((a, trans_a), (b, trans_b)):
        own_order = order if order in matrix.orders else next(iter(matrix.orders))
        flipped = own_order != order
        setattr(problem, f"trans_{matrix.name}", bool(trans) != flipped)
        setattr(problem, f"ld{matrix.name}", matrix.leading_dimension(own_order))
        setattr(problem, f"{matrix.name}_offset", matrix.offset)
    problem.ldc = c.leading_dimension(order)
    problem.c_offset = c.offset
    return problem
