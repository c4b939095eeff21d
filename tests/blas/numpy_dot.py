"""numpy.dot on float32 matrices with libclgemm_blas preloaded into the system Python (Debian's
python3-numpy, whose BLAS is the system's libblas.so.3): the product must equal the one
computed without it, and the trace must say the device ran the cblas_sgemm call.

Usage: numpy_dot.py LIBCLGEMM_BLAS    (runs itself twice as a child: preloaded and not)
"""
import os
import subprocess
import sys
import tempfile


def child(output):
    import numpy

    generator = numpy.random.default_rng(28)
    a = generator.standard_normal((230, 170), dtype=numpy.float32)
    b = generator.standard_normal((170, 110), dtype=numpy.float32)
    numpy.save(output, numpy.dot(a, b))
    # A transposed operand, as NumPy passes it to CBLAS without copying.
    numpy.save(output + ".t", numpy.dot(a.T[:110, :].T.T, a))


def run(library, preload, output):
    environment = dict(os.environ, CLGEMM_BLAS_MODE="device", CLGEMM_BLAS_TRACE="1")
    environment.pop("LD_PRELOAD", None)
    if preload:
        environment["LD_PRELOAD"] = library
    result = subprocess.run([sys.executable, __file__, "--child", output], env=environment,
                            capture_output=True, text=True, timeout=120)
    sys.stdout.write(result.stdout + result.stderr)
    if result.returncode != 0:
        sys.exit(f"numpy_dot: the child ({'preloaded' if preload else 'plain'}) failed")
    return result.stderr


def main():
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
        return
    import numpy

    library = sys.argv[1]
    with tempfile.TemporaryDirectory() as directory:
        plain, preloaded = os.path.join(directory, "plain"), os.path.join(directory, "preloaded")
        run(library, False, plain)
        trace = run(library, True, preloaded)
        for suffix in ("", ".t"):
            expected = numpy.load(plain + suffix + ".npy")
            got = numpy.load(preloaded + suffix + ".npy")
            scale = numpy.abs(expected).max()
            error = numpy.abs(got - expected).max() / scale
            print(f"numpy_dot: {expected.shape} max error {error:.2e} of the largest element")
            if not error < 1e-5:
                sys.exit("numpy_dot: the preloaded product differs")
    device_lines = [line for line in trace.splitlines() if "cblas_sgemm" in line and ": device" in line]
    if len(device_lines) < 2:
        sys.exit("numpy_dot: the trace does not show two cblas_sgemm calls on the device")
    print("numpy_dot: OK:", device_lines[0])


main()
