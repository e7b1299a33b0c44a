"""Issue 38: MindSpore 2.10's determinants, inverses, solves and QR
(frontend/ops/linalg.py, linalg_qr.py on linalg_core.py) and their Tensor methods.
Values are what MindSpore 2.10 printed on CPU (pasted as constants); every case
runs in PyNative and graph mode; gradients against finite differences; bad input
raises MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

import mindjit as ms
from mindjit import Tensor, ops

RNG = np.random.default_rng(3839)
A = np.array([[2.0, 1.0, 0.5], [1.0, 3.0, 1.0], [0.0, 2.0, 4.0]], np.float32)
ANEG = np.array([[0.0, 1.0], [2.0, 3.0]], np.float32)
SING = np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)
SPD = A @ A.T


def _check(got, want, dtype=None, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=rtol, atol=atol)
    assert got.shape == np.asarray(want).shape
    if dtype is not None:
        assert str(got.dtype) == dtype


def test_determinants(mode):
    got = run(
        lambda a, n, s, b: (
            ops.det(a),
            ops.det(n),
            ops.det(s),
            a.det(),
            ops.matrix_determinant(n),
            ops.slogdet(a),
            n.slogdet(),
            ops.log_matrix_determinant(s),
            ops.logdet(a),
            ops.logdet(n),
            s.logdet(),
            ops.det(b),
            ops.det(Tensor(np.array([[2.0, 1.0], [1.0, 3.0]]))),
        ),
        mode,
        Tensor(A),
        Tensor(ANEG),
        Tensor(SING),
        Tensor(np.arange(8, dtype=np.float32).reshape(2, 2, 2) ** 1.5),
    )
    # MindSpore 2.10's printed values
    _check(got[0], 17.0, "Float32")
    _check(got[1], -2.0)
    _check(got[2], 0.0)
    _check(got[3], 17.0)
    _check(got[4], -2.0)
    _check(got[5][0], 1.0)
    _check(got[5][1], 2.8332133293151855)
    _check(got[6][0], -1.0)
    _check(got[6][1], 0.6931471824645996)
    _check(got[7][0], 0.0)
    assert got[7][1].asnumpy() == -np.inf
    _check(got[8], 2.8332133293151855)
    assert np.isnan(got[9].asnumpy())
    assert got[10].asnumpy() == -np.inf
    _check(got[11], [-2.8284270763397217, -16.154695510864258])
    _check(got[12], 5.0, "Float64")


def test_inverse_and_solves(mode):
    rhs = np.array([[1.0], [2.0], [3.0]], np.float32)
    b2 = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 1.0]], np.float32)
    got = run(
        lambda a, n, spd, r, b: (
            ops.inverse(a),
            n.inverse(),
            ops.inverse(
                Tensor(np.array([[[2.0, 0.0], [1.0, 3.0]], [[1.0, 5.0], [0.0, 2.0]]], np.float32))
            ),
            ops.matrix_solve(a, r),
            ops.matrix_solve(a, r, True),
            ops.cholesky(spd),
            ops.cholesky(spd, True),
            spd.cholesky(),
            ops.cholesky_inverse(ops.cholesky(spd)),
            ops.cholesky(spd, True).cholesky_inverse(True),
            ops.cholesky_solve(r, ops.cholesky(spd)),
            ops.cholesky_solve(b, ops.cholesky(spd, True), True),
            r.cholesky_solve(ops.cholesky(spd)),
        ),
        mode,
        Tensor(A),
        Tensor(ANEG),
        Tensor(SPD),
        Tensor(rhs),
        Tensor(b2),
    )
    # MindSpore 2.10's printed values
    _check(
        got[0],
        [
            [0.5882351994514465, -0.1764705926179886, -0.02941180020570755],
            [-0.23529410362243652, 0.47058820724487305, -0.0882352963089943],
            [0.11764699965715408, -0.23529410362243652, 0.29411759972572327],
        ],
        "Float32",
    )
    _check(got[1], [[-1.5, 0.5], [1.0, 0.0]])
    _check(
        got[2],
        [[[0.5, 0.0], [-0.16666670143604279, 0.33333340287208557]], [[1.0, -2.5], [0.0, 0.5]]],
    )
    _check(got[3], [[0.14705879986286163], [0.44117650389671326], [0.529411792755127]])
    _check(got[4], [[0.47058820724487305], [0.0588236004114151], [0.6764705181121826]])
    low = [
        [2.291287899017334, 0.0, 0.0],
        [2.4003968238830566, 2.2886886596679688, 0.0],
        [1.7457430362701416, 2.5383636951446533, 3.2417726516723633],
    ]
    _check(got[5], low)
    _check(got[6], np.array(low).T)
    _check(got[7], low)
    inv = [
        [0.41522499918937683, -0.24221450090408325, 0.03806230053305626],
        [-0.2422146052122116, 0.3079583942890167, -0.10553629696369171],
        [0.03806230053305626, -0.10553629696369171, 0.09515570104122162],
    ]
    _check(got[8], inv)
    _check(got[9], inv)
    _check(got[10], [[0.044982701539993286], [0.05709340050816536], [0.1124567985534668]])
    _check(
        got[11],
        [
            [0.044982701539993286, -0.2041521966457367],
            [0.05709340050816536, 0.202422097325325],
            [0.1124567985534668, -0.010380599647760391],
        ],
    )
    _check(got[12], [[0.044982701539993286], [0.05709340050816536], [0.1124567985534668]])


def test_lu_solve_unpack(mode):
    lu_data = np.array([[2.0, 1.0, 0.5], [0.5, 2.5, 0.75], [0.0, 0.8, 3.4]], np.float32)
    lu2 = np.array([[2.0, 3.0], [0.5, -0.5]], np.float32)
    got = run(
        lambda b, lu, piv, lu2, piv2: (
            ops.lu_solve(b, lu, piv),
            b.lu_solve(lu, piv),
            ops.lu_solve(Tensor(np.array([[1.0], [2.0]], np.float32)), lu2, piv2),
            ops.lu_unpack(lu2, piv2),
            ops.lu_unpack(
                Tensor(np.array([[2.0, 3.0], [0.5, -0.5], [0.25, 1.0]], np.float32)),
                Tensor(np.array([3, 2], np.int32)),
            ),
            ops.lu_unpack(Tensor(np.array([[2.0, 3.0, 1.0], [0.5, -0.5, 2.0]], np.float32)), piv2),
        ),
        mode,
        Tensor(np.array([[1.0, 0.0], [2.0, 1.0], [3.0, -1.0]], np.float32)),
        Tensor(lu_data),
        Tensor(np.array([1, 2, 3], np.int32)),
        Tensor(lu2),
        Tensor(np.array([2, 2], np.int32)),
    )
    # MindSpore 2.10's printed values
    want = [
        [0.14705879986286163, -0.14705879986286163],
        [0.44117650389671326, 0.5588235855102539],
        [0.529411792755127, -0.529411792755127],
    ]
    _check(got[0], want, "Float32")
    _check(got[1], want)
    _check(got[2], [[1.0], [0.0]])
    _check(got[3][0], [[0.0, 1.0], [1.0, 0.0]])
    _check(got[3][1], [[1.0, 0.0], [0.5, 1.0]])
    _check(got[3][2], [[2.0, 3.0], [0.0, -0.5]])
    _check(got[4][0], [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    _check(got[4][1], [[1.0, 0.0], [0.5, 1.0], [0.25, 1.0]])
    _check(got[4][2], [[2.0, 3.0], [0.0, -0.5]])
    _check(got[5][1], [[1.0, 0.0], [0.5, 1.0]])
    _check(got[5][2], [[2.0, 3.0, 1.0], [0.0, -0.5, 2.0]])
    p, low, up = ops.lu_unpack(Tensor(lu2), Tensor(np.array([2, 2], np.int64)), unpack_data=False)
    assert low is None and up is None
    _check(p, [[0.0, 1.0], [1.0, 0.0]])


def test_qr_family(mode):
    tall = np.arange(6, dtype=np.float32).reshape(3, 2) + 1
    got = run(
        lambda a, t: (
            ops.qr(a),
            ops.qr(Tensor(np.arange(6, dtype=np.float32).reshape(3, 2)), "complete"),
            ops.qr(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) + 1)),
            ops.qr(Tensor(np.arange(12, dtype=np.float32).reshape(2, 3, 2) % 5)),
            a.qr(False),
            ops.geqrf(a),
            ops.geqrf(t),
            a.geqrf(),
            ops.orgqr(*ops.geqrf(a)),
            ops.orgqr(*ops.geqrf(t)),
            a.orgqr(Tensor(np.array([1.5, 0.5], np.float32))),
        ),
        mode,
        Tensor(A),
        Tensor(tall),
    )
    # MindSpore 2.10's printed values
    q = [
        [-0.8944271206855774, 0.3333333134651184, 0.2981424033641815],
        [-0.4472135901451111, -0.6666666269302368, -0.596284806728363],
        [0.0, -0.6666666865348816, 0.745356023311615],
    ]
    r = [
        [-2.2360680103302, -2.2360680103302, -0.8944271802902222],
        [0.0, -3.0, -3.1666665077209473],
        [0.0, 0.0, 2.534210205078125],
    ]
    _check(got[0][0], q, "Float32")
    _check(got[0][1], r)
    _check(
        got[1][0],
        [
            [0.0, 0.9128708839416504, 0.40824830532073975],
            [-0.4472135901451111, 0.3651483952999115, -0.8164966106414795],
            [-0.8944271802902222, -0.18257419764995575, 0.40824830532073975],
        ],
    )
    _check(
        got[1][1], [[-4.4721360206604, -5.813776969909668], [0.0, 1.0954450368881226], [0.0, 0.0]]
    )
    _check(
        got[2][0],
        [[-0.24253560602664948, -0.9701424837112427], [-0.9701424837112427, 0.24253550171852112]],
    )
    _check(
        got[2][1],
        [
            [-4.123105525970459, -5.3357834815979, -6.5484619140625],
            [0.0, -0.7276071906089783, -1.455214023590088],
        ],
    )
    _check(
        got[3][0],
        [
            [
                [0.0, -0.34921500086784363],
                [-0.4472135901451111, -0.8381164073944092],
                [-0.8944271802902222, 0.4190582036972046],
            ],
            [
                [-0.3162277936935425, 0.5070924758911133],
                [-0.9486833214759827, -0.1690308004617691],
                [0.0, 0.8451542854309082],
            ],
        ],
    )
    _check(
        got[3][1],
        [
            [[-4.4721360206604, -1.3416407108306885], [0.0, -2.8635642528533936]],
            [[-3.1622776985168457, -4.427188396453857], [0.0, 1.183215856552124]],
        ],
    )
    _check(got[4][0], q)
    _check(got[4][1], r)
    packed = [
        [-2.2360680103302, -2.2360680103302, -0.8944271802902222],
        [0.236067995429039, -3.0, -3.1666665077209473],
        [0.0, 0.3819659948348999, 2.534210205078125],
    ]
    _check(got[5][0], packed)
    _check(got[5][1], [1.894426941871643, 1.7453559637069702, 0.0])
    _check(
        got[6][0],
        [
            [-5.916079521179199, -7.43735933303833],
            [0.4337717890739441, 0.8280805945396423],
            [0.7229530215263367, 0.8926231265068054],
        ],
    )
    _check(got[6][1], [1.1690309047698975, 1.1131048202514648])
    _check(got[7][0], packed)
    _check(got[8], q)
    _check(
        got[9],
        [
            [-0.16903090476989746, 0.8970854878425598],
            [-0.5070925951004028, 0.27602559328079224],
            [-0.8451542854309082, -0.34503230452537537],
        ],
    )
    _check(got[10], [[-0.5, -0.75, 1.5], [-1.5, -0.25, 0.5], [0.0, -1.0, -1.0]])


def test_matrix_power_negative(mode):
    a = Tensor(np.array([[2.0, 1.0], [1.0, 3.0]], np.float32))
    got = run(
        lambda x, b: (
            ops.matrix_power(x, -1),
            ops.matrix_power(x, -2),
            x.matrix_power(-3),
            ops.matrix_power(b, -1),
        ),
        mode,
        a,
        Tensor(np.arange(8, dtype=np.float32).reshape(2, 2, 2) + np.eye(2, dtype=np.float32)),
    )
    # MindSpore 2.10's printed values
    _check(
        got[0],
        [[0.6000000238418579, -0.20000001788139343], [-0.20000001788139343, 0.40000003576278687]],
    )
    _check(
        got[1],
        [[0.40000003576278687, -0.20000001788139343], [-0.20000001788139343, 0.20000003278255463]],
    )
    _check(
        got[2],
        [[0.2800000309944153, -0.1600000262260437], [-0.1600000262260437, 0.12000002712011337]],
    )
    _check(got[3], [[[2.0, -0.5], [-1.0, 0.5]], [[0.8, -0.5], [-0.6, 0.5]]])


def test_lstsq(mode):
    got = run(
        lambda x, a: (
            ops.lstsq(x, a),
            ops.lstsq(
                Tensor(np.array([[1.0], [2.0], [4.0]], np.float32)),
                Tensor(np.array([[1.0, 1.0], [1.0, 2.0], [1.0, 3.0]], np.float32)),
            ),
            ops.lstsq(
                Tensor(np.array([[1.0, 2.0, 3.0], [2.0, 0.0, 1.0]], np.float32)),
                Tensor(np.array([[1.0], [2.0]], np.float32)),
            ),
            ops.lstsq(
                Tensor(np.array([[1.0, 2.0], [2.0, 0.0], [1.0, 1.0]], np.float32)),
                Tensor(np.array([1.0, 2.0, 3.0], np.float32)),
            ),
            x.lstsq(a),
        ),
        mode,
        Tensor(np.array([[1.0], [2.0], [3.0]], np.float32)),
        Tensor(A),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [[0.28571420907974243, 0.9285712838172913, 1.0357142686843872]], "Float32")
    _check(got[1], [[0.3333333134651184, 0.8095237016677856]])
    _check(got[2], [[0.9111111760139465], [-0.2222221940755844], [0.17777779698371887]])
    _check(got[3], [[1.1904761791229248], [0.28571438789367676]])
    _check(got[4], got[0].asnumpy())


@pytest.mark.parametrize(
    "fn",
    [
        ops.det,
        lambda x: ops.slogdet(x)[1],
        ops.inverse,
        lambda x: ops.matrix_solve(x, ops.exp(x)),
        lambda x: ops.cholesky(ops.matmul(x, x.T) + 3 * ops.eye(3, 3, ms.float64)),
        lambda x: ops.qr(x)[0] + ops.qr(x)[1],
        lambda x: ops.lstsq(x[:, :2], x),
    ],
    ids=["det", "slogdet", "inverse", "matrix_solve", "cholesky", "qr", "lstsq"],
)
def test_gradients(fn):
    assert_grads_match_finite_differences(
        fn, [A.astype(np.float64) + RNG.uniform(-0.2, 0.2, (3, 3))], RNG
    )


def test_value_checks_in_pynative():
    # MindSpore 2.10 raises these; mindjit does in PyNative (a graph cannot raise on data)
    with pytest.raises(RuntimeError, match="positive definite"):
        ops.cholesky(Tensor(ANEG))
    with pytest.raises(RuntimeError, match="positive definite"):
        ops.cholesky(Tensor(np.array([[4.0, 7.0], [2.0, 3.0]], np.float32)), True)
    with pytest.raises(ValueError, match="not invertible"):
        ops.matrix_solve(Tensor(SING), Tensor(np.array([[1.0], [2.0]], np.float32)))


def test_errors():
    with pytest.raises(TypeError):
        ops.det(Tensor(np.array([[2, 1], [1, 3]], np.int32)))
    with pytest.raises(ValueError):
        ops.det(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError):
        ops.slogdet(Tensor(np.ones((3,), np.float32)))
    with pytest.raises(TypeError):
        ops.inverse(Tensor(np.eye(2, dtype=np.float16)))
    with pytest.raises(TypeError):
        ops.matrix_solve(Tensor(np.eye(2, dtype=np.int32)), Tensor(np.ones((2, 1), np.int32)))
    with pytest.raises(ValueError):
        ops.matrix_solve(Tensor(np.eye(2, dtype=np.float32)), Tensor(np.ones((2,), np.float32)))
    with pytest.raises(ValueError):
        ops.cholesky(Tensor(np.ones((2,), np.float32)))
    with pytest.raises(ValueError):
        ops.cholesky(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(TypeError):
        ops.cholesky(Tensor(np.eye(2, dtype=np.float32)), 1)
    with pytest.raises(ValueError):
        ops.cholesky_solve(Tensor(np.ones((2,), np.float32)), Tensor(np.eye(2, dtype=np.float32)))
    with pytest.raises(TypeError):
        ops.cholesky_solve(Tensor(np.ones((2, 1))), Tensor(np.eye(2, dtype=np.float32)))
    with pytest.raises(ValueError):
        ops.lu_solve(
            Tensor(np.ones((2,), np.float32)), Tensor(np.eye(2, dtype=np.float32)), Tensor([1, 2])
        )
    with pytest.raises(TypeError):
        ops.qr(Tensor(np.ones((2, 2), np.int32)))
    with pytest.raises(TypeError):
        ops.qr(Tensor(A), "r")
    with pytest.raises(ValueError):
        ops.qr(Tensor(np.ones((2,), np.float32)))
    with pytest.raises(ValueError):
        ops.geqrf(Tensor(np.ones((2,), np.float32)))
    with pytest.raises(TypeError):
        ops.geqrf(Tensor(np.ones((2, 2), np.int32)))
    with pytest.raises(ValueError):
        ops.orgqr(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2,), np.float32)))
    with pytest.raises(TypeError):
        ops.orgqr(Tensor(np.eye(2, dtype=np.int32)), Tensor(np.array([1], np.int32)))
    with pytest.raises(ValueError):
        ops.lstsq(Tensor(np.ones((2, 3, 2), np.float32)), Tensor(np.ones((2, 3, 1), np.float32)))
    with pytest.raises(ValueError):
        ops.lstsq(Tensor(np.ones((3, 2), np.float32)), Tensor(np.ones((2, 1), np.float32)))
    with pytest.raises(TypeError):
        ops.lstsq(Tensor(np.ones((3, 2), np.int32)), Tensor(np.ones((3, 1), np.int32)))
