"""From described operands to the library's GemmProblem.

The library computes C = alpha * op(A) * op(B) + beta * C with one storage order for all three
matrices. The problem takes C's order; an operand stored in the other order is, read in C's
order, its own transpose, so its transpose flag is flipped (an F-contiguous A under a
C-contiguous C is A^T stored row-major). Leading dimensions are the operands' own, offsets
the device operands' positions in their buffers. Sizes and leading dimensions are checked by
the library; here only that the shapes agree.

Stacks of matrices (3-D operands) are the library's strided batch: the elements between
consecutive matrices become stride_a, stride_b and stride_c, and a 2-D A or B, or a stack of
one, is broadcast to every product with stride 0 (as NumPy's matmul broadcasts). C always has
the batch dimension; that C's products do not overlap is the library's check. The epilogue
(bias and activation) goes into the problem's Epilogue.
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


def product_batch(a, b):
    """The batch of op(A) times op(B): None when both are matrices (2-D), else the length of
    their stacks, a stack of one (or a matrix) being broadcast; ValueError when the stacks
    differ otherwise."""
    stacks = {x.name: x.batch for x in (a, b) if x.batch is not None}
    lengths = set(stacks.values())
    if len(lengths - {1}) > 1:
        listed = ", ".join(f"{name} holds {batch}" for name, batch in stacks.items())
        raise ValueError(f"the stacks of matrices differ in length: {listed} "
                         f"(only a stack of 1, or a 2-D operand, is broadcast)")
    if not lengths:
        return None
    return next(iter(lengths - {1}), 1)


def check_result_shape(c, m, n, batch):
    """ValueError unless the given C is m x n (a stack of `batch` of them for 3-D operands)."""
    expected = (m, n) if batch is None else (batch, m, n)
    actual = (c.rows, c.cols) if c.batch is None else (c.batch, c.rows, c.cols)
    if actual != expected:
        hint = ""
        if batch is not None and c.batch is None:
            hint = ": c must have the batch dimension (it is never broadcast)"
        elif batch is not None and c.batch == 1 and batch != 1:
            hint = ": c must hold one matrix per product (it is never broadcast)"
        raise ValueError(f"c has shape {actual}, but the product is {expected}{hint}")


_BIAS = {None: "none", "m": "per-row", "n": "per-column"}


def gemm_problem(a, b, c, m, n, k, alpha, beta, trans_a, trans_b, batch=None, epilogue=None):
    """The GemmProblem for these described operands, `batch` products (None: one matrix) and
    the checked Epilogue (see the module's docstring)."""
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
    if batch is not None:
        problem.batch = batch
        problem.stride_a, problem.stride_b = a.batch_stride, b.batch_stride
        problem.stride_c = c.batch_stride
    if epilogue is not None and not epilogue.is_identity:
        target = problem.epilogue  # the problem's own, changed in place
        target.bias = _BIAS[epilogue.bias_along]
        if epilogue.bias is not None:
            target.bias_stride, target.bias_offset = epilogue.bias_stride, epilogue.bias_offset
        target.activation = epilogue.activation
        if epilogue.clamp_range is not None:
            target.clamp_low, target.clamp_high = epilogue.clamp_range
    return problem
