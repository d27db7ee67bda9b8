"""``system.to_drake`` (lagdyn.drake) against Drake itself, when pydrake is installed.

- Drake's ``Simulator`` (RK5, tight accuracy) running the lagdyn ``LeafSystem`` agrees with
  :func:`lagdyn.simulate` (DOP853 at 1e-12) on the double pendulum: free, with a constant
  torque from a ``ConstantVectorSource`` in a ``Diagram``, with the state fed back through a
  ``MatrixGain`` (no algebraic loop: the outputs do not depend on τ), on the cart-pole with
  one actuated coordinate, and with g as a tunable Drake numeric parameter.
- The UR5 built by lagdyn from its URDF and Drake's own ``MultibodyPlant`` from the same file
  (visuals and collisions stripped: no meshes needed) agree on M (``CalcMassMatrix``),
  gravity (``CalcGravityGeneralizedForces``), inverse dynamics (``CalcInverseDynamics`` with
  zero forces: M v̇ + C v, and with gravity added as Drake's force element) and forward dynamics (the plant's time derivatives with its
  actuation input fixed, against the lagdyn system's) to 1e-9 relative at random states,
  with Drake's joints matched to lagdyn's coordinates by name.
- Errors: pydrake missing, bad parameters, tunable names and inputs, a NaN torque.
"""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

import lagdyn as ld
from lagdyn.errors import BackendUnavailableError, LagdynError

RTOL_SIM = 1e-6
RTOL_PLANT = 1e-9


@pytest.fixture(scope="module")
def drake():
    """pydrake's modules (one import for the file: it is slow)."""
    pytest.importorskip("pydrake", reason="pydrake is not installed: pip install 'lagdyn[drake]'")
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant
    from pydrake.multibody.tree import MultibodyForces
    from pydrake.systems.analysis import ResetIntegratorFromFlags, Simulator
    from pydrake.systems.framework import DiagramBuilder
    from pydrake.systems.primitives import ConstantVectorSource, MatrixGain

    return {
        "Parser": Parser,
        "MultibodyPlant": MultibodyPlant,
        "MultibodyForces": MultibodyForces,
        "Simulator": Simulator,
        "ResetIntegratorFromFlags": ResetIntegratorFromFlags,
        "DiagramBuilder": DiagramBuilder,
        "ConstantVectorSource": ConstantVectorSource,
        "MatrixGain": MatrixGain,
    }


@pytest.fixture(scope="module")
def double_pendulum():
    return ld.zoo.double_pendulum()


def run(drake, diagram, plant, x0, T, params=None):
    """Simulate ``diagram`` (containing ``plant``) from ``x0`` to ``T``; plant's final state."""
    sim = drake["Simulator"](diagram)
    drake["ResetIntegratorFromFlags"](sim, "runge_kutta5", 0.01)
    sim.get_mutable_integrator().set_target_accuracy(1e-12)
    ctx = sim.get_mutable_context()
    sub = plant.GetMyMutableContextFromRoot(ctx) if diagram is not plant else ctx
    sub.SetContinuousState(x0)
    if params is not None:
        sub.get_mutable_numeric_parameter(0).SetFromVector(params)
    sim.AdvanceTo(T)
    return plant.GetOutputPort("state").Eval(sub)


def reference(system, x0, T, **kw):
    res = ld.simulate(system, x0, [0.0, T], method="scipy-DOP853", rtol=1e-12, atol=1e-12, **kw)
    return np.asarray(res.x)[-1]


def close(a, b, rtol):
    scale = max(1.0, float(np.max(np.abs(b))))
    np.testing.assert_allclose(a, b, rtol=0, atol=rtol * scale)


X0 = np.array([0.7, -0.4, 0.3, 1.1])


def test_free_motion_matches_simulate(drake, double_pendulum):
    plant = double_pendulum.to_drake()
    assert plant.num_continuous_states() == 4
    assert [plant.get_input_port(i).get_name() for i in range(plant.num_input_ports())] == ["tau"]
    ports = [plant.get_output_port(i).get_name() for i in range(plant.num_output_ports())]
    assert ports == ["state", "energy"]
    x = run(drake, plant, plant, X0, 1.0)  # tau unconnected: zero
    close(x, reference(double_pendulum, X0, 1.0), RTOL_SIM)
    ctx = plant.CreateDefaultContext()
    ctx.SetContinuousState(X0)
    num = double_pendulum.lambdify(double_pendulum.defaults)
    assert plant.GetOutputPort("energy").Eval(ctx)[0] == pytest.approx(
        float(num.energy(X0[:2], X0[2:])), rel=1e-15
    )


def test_constant_torque_in_a_diagram(drake, double_pendulum):
    builder = drake["DiagramBuilder"]()
    plant = builder.AddSystem(double_pendulum.to_drake(name="dp"))
    tau = np.array([0.8, -0.3])
    source = builder.AddSystem(drake["ConstantVectorSource"](tau))
    builder.Connect(source.get_output_port(), plant.GetInputPort("tau"))
    diagram = builder.Build()
    x = run(drake, diagram, plant, X0, 1.5)
    close(x, reference(double_pendulum, X0, 1.5, tau=tau), RTOL_SIM)
    # the torque acts: without it the state is elsewhere
    assert np.max(np.abs(x - reference(double_pendulum, X0, 1.5))) > 1e-2


def test_state_feedback_without_algebraic_loop(drake, double_pendulum):
    K = np.array([[-6.0, 1.0, -2.0, 0.0], [0.5, -4.0, 0.0, -1.5]])  # tau = K x
    builder = drake["DiagramBuilder"]()
    plant = builder.AddSystem(double_pendulum.to_drake())
    gain = builder.AddSystem(drake["MatrixGain"](K))
    builder.Connect(plant.GetOutputPort("state"), gain.get_input_port())
    builder.Connect(gain.get_output_port(), plant.GetInputPort("tau"))
    diagram = builder.Build()  # an algebraic loop would be refused here
    x = run(drake, diagram, plant, X0, 1.5)

    def feedback(t, q, qd):
        return np.concatenate([q, qd], axis=-1) @ K.T

    close(x, reference(double_pendulum, X0, 1.5, tau=feedback), RTOL_SIM)


def test_actuated_coordinates_only(drake):
    cp = ld.zoo.cart_pole()
    plant = cp.to_drake(inputs=["x"])
    assert plant.GetInputPort("tau").size() == 1
    assert plant.actuated == (0,) and plant.coordinates == ("x", "theta")
    builder = drake["DiagramBuilder"]()
    builder.AddSystem(plant)
    source = builder.AddSystem(drake["ConstantVectorSource"]([2.0]))
    builder.Connect(source.get_output_port(), plant.GetInputPort("tau"))
    x0 = np.array([0.0, 0.3, 0.0, 0.0])
    x = run(drake, builder.Build(), plant, x0, 1.0)
    close(x, reference(cp, x0, 1.0, tau=[2.0, 0.0]), RTOL_SIM)
    # by index, the other coordinate
    assert cp.to_drake(inputs=[1]).actuated == (1,)


def test_tunable_parameter(drake, double_pendulum):
    plant = double_pendulum.to_drake({"m2": 2.0}, tunable=["g"])
    assert [str(s) for s in plant.free_parameters] == ["g"]
    ctx = plant.CreateDefaultContext()
    np.testing.assert_array_equal(ctx.get_numeric_parameter(0).CopyToVector(), [10.0])
    x = run(drake, plant, plant, X0, 1.0, params=[4.0])
    close(x, reference(double_pendulum, X0, 1.0, params={"m2": 2.0, "g": 4.0}), RTOL_SIM)
    # values are checked against the symbol's assumptions (g is positive) when used
    ctx.SetContinuousState(X0)
    ctx.get_mutable_numeric_parameter(0).SetFromVector([-1.0])
    with pytest.raises(LagdynError, match=r"params\[g\] = -1\.0 breaks the assumption"):
        plant.EvalTimeDerivatives(ctx)
    ctx.get_mutable_numeric_parameter(0).SetFromVector([np.nan])
    with pytest.raises(LagdynError, match="numeric parameter 0 has non-finite values for g"):
        plant.EvalTimeDerivatives(ctx)
    with pytest.raises(LagdynError, match="numeric parameter 0 has non-finite values for g"):
        plant.GetOutputPort("energy").Eval(ctx)


def test_compiled_backend_same_derivatives(drake, double_pendulum):
    pytest.importorskip("cffi")
    numpy_plant = double_pendulum.to_drake()
    c_plant = double_pendulum.to_drake(backend="c")
    assert c_plant.model.backend == "c"
    for plant in (numpy_plant, c_plant):
        ctx = plant.CreateDefaultContext()
        ctx.SetContinuousState(X0)
        plant.GetInputPort("tau").FixValue(ctx, [0.2, 0.1])
        plant.derivatives = plant.EvalTimeDerivatives(ctx).CopyToVector()
    close(c_plant.derivatives, numpy_plant.derivatives, 1e-14)


# ---------------------------------------------------------------- UR5 against MultibodyPlant
@pytest.fixture(scope="module")
def ur5(drake, tmp_path_factory):
    from lagdyn.robot._data import urdf_path

    try:
        path = urdf_path("ur_description", "ur5_robot.urdf")
    except ImportError as exc:
        pytest.skip(f"example-robot-data is not installed: {exc}")
    # Drake would resolve package:// meshes; the dynamics need none of them
    text = re.sub(r"<(visual|collision)\b.*?</\1>", "", path.read_text(), flags=re.S)
    mbp = drake["MultibodyPlant"](0.0)
    drake["Parser"](mbp).AddModelsFromString(text, "urdf")
    mbp.Finalize()
    system = ld.robot.from_urdf(path, parameters="numeric")
    assert mbp.num_velocities() == mbp.num_positions() == mbp.num_actuators() == system.n
    # lagdyn coordinate i is Drake's velocity perm[i] (joints matched by name)
    perm = np.array([mbp.GetJointByName(j).velocity_start() for j in system.chain.joint_names])
    assert sorted(perm) == list(range(system.n))
    act = np.array(
        [mbp.get_joint_actuator(a).joint().velocity_start() for a in mbp.GetJointActuatorIndices()]
    )
    return system, mbp, perm, act


def test_ur5_mass_matrix_and_inverse_dynamics_match_multibody_plant(drake, ur5):
    system, mbp, perm, _ = ur5
    n = system.n
    num = system.lambdify(system.defaults)
    assert float(system.defaults[sp_symbol(system, "g")]) == 9.81
    ctx = mbp.CreateDefaultContext()
    rng = np.random.default_rng(23)
    for _ in range(4):
        q, v, a = (rng.uniform(-2, 2, n) for _ in range(3))
        qd, vd, ad = (np.empty(n) for _ in range(3))
        qd[perm], vd[perm], ad[perm] = q, v, a
        mbp.SetPositions(ctx, qd)
        mbp.SetVelocities(ctx, vd)
        M = mbp.CalcMassMatrix(ctx)[np.ix_(perm, perm)]
        close(num.M(q), M, RTOL_PLANT)
        g = num.g(q)
        close(g, -mbp.CalcGravityGeneralizedForces(ctx)[perm], RTOL_PLANT)
        forces = drake["MultibodyForces"](mbp)  # zero: M v̇ + C v
        close(
            num.inverse_dynamics(q, v, a) - g,
            mbp.CalcInverseDynamics(ctx, ad, forces)[perm],
            RTOL_PLANT,
        )
        mbp.CalcForceElementsContribution(ctx, forces)  # gravity is Drake's force element
        close(
            num.inverse_dynamics(q, v, a),
            mbp.CalcInverseDynamics(ctx, ad, forces)[perm],
            RTOL_PLANT,
        )


def sp_symbol(system, name):
    return next(s for s in system.parameters if str(s) == name)


def test_ur5_forward_dynamics_match_multibody_plant(drake, ur5):
    system, mbp, perm, act = ur5
    n = system.n
    ours = system.to_drake()
    assert ours.model.route == "recursive"
    ctx = mbp.CreateDefaultContext()
    mine = ours.CreateDefaultContext()
    rng = np.random.default_rng(5)
    for _ in range(4):
        q, v, u = (rng.uniform(-2, 2, n) for _ in range(3))
        qd, vd = np.empty(n), np.empty(n)
        qd[perm], vd[perm] = q, v
        mbp.SetPositions(ctx, qd)
        mbp.SetVelocities(ctx, vd)
        # actuator k drives Drake velocity act[k], i.e. lagdyn coordinate inv[act[k]]
        ud = np.empty(n)
        ud[perm] = u
        mbp.get_actuation_input_port().FixValue(ctx, ud[act])
        drake_x = mbp.EvalTimeDerivatives(ctx).CopyToVector()
        mine.SetContinuousState(np.concatenate([q, v]))
        ours.GetInputPort("tau").FixValue(mine, u)
        our_x = ours.EvalTimeDerivatives(mine).CopyToVector()
        close(our_x[:n], v, 0.0)
        close(our_x[n:], drake_x[n:][perm], RTOL_PLANT)


# ---------------------------------------------------------------- errors
def test_missing_pydrake_names_the_extra(monkeypatch, double_pendulum):
    import lagdyn.drake as drake_module

    monkeypatch.setattr(drake_module, "_CLASS", None)
    monkeypatch.setitem(sys.modules, "pydrake", None)
    monkeypatch.setitem(sys.modules, "pydrake.systems", None)
    with pytest.raises(BackendUnavailableError, match=re.escape("pip install 'lagdyn[drake]'")):
        double_pendulum.to_drake()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"params": {"mass": 1.0}}, "'mass' is not a parameter of the model"),
        ({"params": {"m1": -1.0}}, "m1"),
        ({"params": [1.0]}, "params must be a mapping"),
        ({"tunable": ["k"]}, "tunable: 'k' is not a parameter"),
        ({"tunable": "g"}, "tunable='g' must be a sequence"),
        ({"tunable": ["g", "g"]}, "given twice"),
        ({"inputs": ["z"]}, "inputs: 'z' is not a coordinate of the model; give names from a, b"),
        ({"inputs": [2]}, "indices 0..1"),
        ({"inputs": [0, 0]}, "given twice"),
        ({"inputs": []}, "inputs is empty"),
        ({"inputs": "a"}, "must be a sequence"),
        ({"name": ""}, "name=''"),
    ],
)
def test_bad_arguments(drake, double_pendulum, kwargs, message):
    with pytest.raises(LagdynError, match=re.escape(message)):
        double_pendulum.to_drake(**kwargs)


def test_parameter_without_value(drake, double_pendulum):
    bare = ld.LagrangianSystem(double_pendulum.L, list(double_pendulum.q))  # no defaults
    with pytest.raises(LagdynError, match=r"have no value: pass them with params=\{'g': \.\.\."):
        bare.to_drake({"m1": 1.0, "m2": 1.0, "l1": 1.0, "l2": 1.0})
    plant = bare.to_drake({"m1": 1.0, "m2": 1.0, "l1": 1.0, "l2": 1.0, "g": 9.0})
    assert plant.model.bound[sp_symbol(bare, "g")] == 9.0


def test_not_a_system(drake):
    from lagdyn.drake import to_drake

    with pytest.raises(LagdynError, match="needs a LagrangianSystem"):
        to_drake("double_pendulum")


def test_nan_torque_is_named(drake, double_pendulum):
    plant = double_pendulum.to_drake(inputs=["b"])
    ctx = plant.CreateDefaultContext()
    plant.GetInputPort("tau").FixValue(ctx, [np.nan])
    with pytest.raises(
        LagdynError, match=r"input port tau has non-finite values for b at t = 0\.0"
    ):
        plant.EvalTimeDerivatives(ctx)
