/* lagdyn FMI 3.0 glue: Model Exchange and Co-Simulation over lagdyn_fmu_core.h.
 *
 * Every function of fmi3Functions.h is defined (FMPy and other importers bind all of them);
 * those of interface types this unit does not declare (Scheduled Execution, clocks, FMU
 * state, directional derivatives) return fmi3Error with a log message. */
#include "fmi3Functions.h"
#include "lagdyn_fmu_core.h"

typedef struct {
    fmi3InstanceEnvironment env;
    fmi3LogMessageCallback logger;
    int cosim;
    int terminated;
} Fmi3Glue;

static void fmi3_forward_log(void *self, int error, const char *message) {
    LdInstance *s = (LdInstance *)self;
    Fmi3Glue *g = (Fmi3Glue *)s->glue;
    if (g && g->logger)
        g->logger(g->env, error ? fmi3Error : fmi3OK, error ? "logStatusError" : "logEvents",
                  message);
}

#define INSTANCE(ptr)                                                                         \
    LdInstance *s = (LdInstance *)(ptr);                                                      \
    if (!s) return fmi3Error

static fmi3Instance fmi3_new(fmi3String instanceName, fmi3String token, fmi3Boolean loggingOn,
                             fmi3InstanceEnvironment env, fmi3LogMessageCallback logger,
                             int cosim) {
    LdInstance *s;
    Fmi3Glue *g;
    if (!token || strcmp(token, LD_INSTANTIATION_TOKEN) != 0) {
        if (logger)
            logger(env, fmi3Error, "logStatusError",
                   "instantiation token does not match this FMU's modelDescription.xml");
        return NULL;
    }
    s = ld_new(instanceName ? instanceName : "");
    g = (Fmi3Glue *)calloc(1, sizeof(Fmi3Glue));
    if (!s || !g) {
        ld_free(s);
        free(g);
        if (logger) logger(env, fmi3Error, "logStatusError", "out of memory");
        return NULL;
    }
    g->env = env;
    g->logger = logger;
    g->cosim = cosim;
    s->glue = g;
    s->log = fmi3_forward_log;
    s->logging_on = loggingOn ? 1 : 0;
    return (fmi3Instance)s;
}

const char *fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                               const fmi3String categories[]) {
    INSTANCE(instance);
    (void)nCategories;
    (void)categories;
    s->logging_on = loggingOn ? 1 : 0;
    return fmi3OK;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String instantiationToken,
                                          fmi3String resourcePath, fmi3Boolean visible,
                                          fmi3Boolean loggingOn,
                                          fmi3InstanceEnvironment instanceEnvironment,
                                          fmi3LogMessageCallback logMessage) {
    (void)resourcePath;
    (void)visible;
    return fmi3_new(instanceName, instantiationToken, loggingOn, instanceEnvironment, logMessage,
                    0);
}

fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
    fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
    size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback intermediateUpdate) {
    (void)resourcePath;
    (void)visible;
    (void)eventModeUsed;
    (void)earlyReturnAllowed;
    (void)requiredIntermediateVariables;
    (void)nRequiredIntermediateVariables;
    (void)intermediateUpdate;
    return fmi3_new(instanceName, instantiationToken, loggingOn, instanceEnvironment, logMessage,
                    1);
}

fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
    fmi3LockPreemptionCallback lockPreemption, fmi3UnlockPreemptionCallback unlockPreemption) {
    (void)instanceName;
    (void)instantiationToken;
    (void)resourcePath;
    (void)visible;
    (void)loggingOn;
    (void)clockUpdate;
    (void)lockPreemption;
    (void)unlockPreemption;
    if (logMessage)
        logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                   "this FMU does not support Scheduled Execution");
    return NULL;
}

void fmi3FreeInstance(fmi3Instance instance) {
    LdInstance *s = (LdInstance *)instance;
    if (!s) return;
    free(s->glue);
    ld_free(s);
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                       fmi3Float64 tolerance, fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
    INSTANCE(instance);
    (void)toleranceDefined;
    (void)tolerance;
    (void)stopTimeDefined;
    (void)stopTime;
    return ld_start(s, startTime) ? fmi3Error : fmi3OK;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
    INSTANCE(instance);
    return ld_update(s) ? fmi3Error : fmi3OK;
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance) {
    INSTANCE(instance);
    return fmi3OK;
}

fmi3Status fmi3Terminate(fmi3Instance instance) {
    INSTANCE(instance);
    ((Fmi3Glue *)s->glue)->terminated = 1;
    return fmi3OK;
}

fmi3Status fmi3Reset(fmi3Instance instance) {
    INSTANCE(instance);
    ld_reset(s);
    ((Fmi3Glue *)s->glue)->terminated = 0;
    return fmi3OK;
}

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, fmi3Float64 values[], size_t nValues) {
    size_t i;
    INSTANCE(instance);
    if (nValues != nValueReferences) {
        ld_log(s, 1, "fmi3GetFloat64: %lu values for %lu value references (all are scalars)",
               (unsigned long)nValues, (unsigned long)nValueReferences);
        return fmi3Error;
    }
    for (i = 0; i < nValueReferences; i++)
        if (ld_get(s, valueReferences[i], &values[i])) return fmi3Error;
    return fmi3OK;
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, const fmi3Float64 values[], size_t nValues) {
    size_t i;
    INSTANCE(instance);
    if (nValues != nValueReferences) {
        ld_log(s, 1, "fmi3SetFloat64: %lu values for %lu value references (all are scalars)",
               (unsigned long)nValues, (unsigned long)nValueReferences);
        return fmi3Error;
    }
    for (i = 0; i < nValueReferences; i++)
        if (ld_set(s, valueReferences[i], values[i])) return fmi3Error;
    return fmi3OK;
}

/* getters and setters of types this model has no variable of: only empty calls succeed */
#define LD_NO_VARIABLES(fn, type, qual)                                                        \
    fmi3Status fn(fmi3Instance instance, const fmi3ValueReference valueReferences[],          \
                  size_t nValueReferences, qual type values[], size_t nValues) {             \
        INSTANCE(instance);                                                                   \
        (void)valueReferences;                                                                \
        (void)values;                                                                         \
        (void)nValues;                                                                        \
        if (nValueReferences == 0) return fmi3OK;                                             \
        ld_log(s, 1, #fn ": this model has no variable of this type (value reference %u)",    \
               (unsigned)valueReferences[0]);                                                 \
        return fmi3Error;                                                                     \
    }

LD_NO_VARIABLES(fmi3GetFloat32, fmi3Float32, )
LD_NO_VARIABLES(fmi3GetInt8, fmi3Int8, )
LD_NO_VARIABLES(fmi3GetUInt8, fmi3UInt8, )
LD_NO_VARIABLES(fmi3GetInt16, fmi3Int16, )
LD_NO_VARIABLES(fmi3GetUInt16, fmi3UInt16, )
LD_NO_VARIABLES(fmi3GetInt32, fmi3Int32, )
LD_NO_VARIABLES(fmi3GetUInt32, fmi3UInt32, )
LD_NO_VARIABLES(fmi3GetInt64, fmi3Int64, )
LD_NO_VARIABLES(fmi3GetUInt64, fmi3UInt64, )
LD_NO_VARIABLES(fmi3GetBoolean, fmi3Boolean, )
LD_NO_VARIABLES(fmi3GetString, fmi3String, )
LD_NO_VARIABLES(fmi3SetFloat32, fmi3Float32, const)
LD_NO_VARIABLES(fmi3SetInt8, fmi3Int8, const)
LD_NO_VARIABLES(fmi3SetUInt8, fmi3UInt8, const)
LD_NO_VARIABLES(fmi3SetInt16, fmi3Int16, const)
LD_NO_VARIABLES(fmi3SetUInt16, fmi3UInt16, const)
LD_NO_VARIABLES(fmi3SetInt32, fmi3Int32, const)
LD_NO_VARIABLES(fmi3SetUInt32, fmi3UInt32, const)
LD_NO_VARIABLES(fmi3SetInt64, fmi3Int64, const)
LD_NO_VARIABLES(fmi3SetUInt64, fmi3UInt64, const)
LD_NO_VARIABLES(fmi3SetBoolean, fmi3Boolean, const)
LD_NO_VARIABLES(fmi3SetString, fmi3String, const)

#define LD_UNSUPPORTED(what)                                                                   \
    do {                                                                                      \
        ld_log(s, 1, "%s is not supported by this FMU", what);                                \
        return fmi3Error;                                                                     \
    } while (0)

fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, size_t valueSizes[], fmi3Binary values[],
                         size_t nValues) {
    INSTANCE(instance);
    (void)valueReferences;
    (void)valueSizes;
    (void)values;
    (void)nValues;
    if (nValueReferences == 0) return fmi3OK;
    LD_UNSUPPORTED("fmi3GetBinary (no Binary variable)");
}

fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, const size_t valueSizes[],
                         const fmi3Binary values[], size_t nValues) {
    INSTANCE(instance);
    (void)valueReferences;
    (void)valueSizes;
    (void)values;
    (void)nValues;
    if (nValueReferences == 0) return fmi3OK;
    LD_UNSUPPORTED("fmi3SetBinary (no Binary variable)");
}

fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, fmi3Clock values[]) {
    INSTANCE(instance);
    (void)valueReferences;
    (void)values;
    if (nValueReferences == 0) return fmi3OK;
    LD_UNSUPPORTED("fmi3GetClock (no clock)");
}

fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, const fmi3Clock values[]) {
    INSTANCE(instance);
    (void)valueReferences;
    (void)values;
    if (nValueReferences == 0) return fmi3OK;
    LD_UNSUPPORTED("fmi3SetClock (no clock)");
}

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance,
                                               fmi3ValueReference valueReference,
                                               size_t *nDependencies) {
    INSTANCE(instance);
    (void)valueReference;
    (void)nDependencies;
    LD_UNSUPPORTED("fmi3GetNumberOfVariableDependencies");
}

fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[],
                                       fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[],
                                       fmi3DependencyKind dependencyKinds[],
                                       size_t nDependencies) {
    INSTANCE(instance);
    (void)dependent;
    (void)elementIndicesOfDependent;
    (void)independents;
    (void)elementIndicesOfIndependents;
    (void)dependencyKinds;
    (void)nDependencies;
    LD_UNSUPPORTED("fmi3GetVariableDependencies");
}

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState) {
    INSTANCE(instance);
    (void)FMUState;
    LD_UNSUPPORTED("fmi3GetFMUState");
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState) {
    INSTANCE(instance);
    (void)FMUState;
    LD_UNSUPPORTED("fmi3SetFMUState");
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState) {
    INSTANCE(instance);
    (void)FMUState;
    LD_UNSUPPORTED("fmi3FreeFMUState");
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState,
                                      size_t *size) {
    INSTANCE(instance);
    (void)FMUState;
    (void)size;
    LD_UNSUPPORTED("fmi3SerializedFMUStateSize");
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState,
                                 fmi3Byte serializedState[], size_t size) {
    INSTANCE(instance);
    (void)FMUState;
    (void)serializedState;
    (void)size;
    LD_UNSUPPORTED("fmi3SerializeFMUState");
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[],
                                   size_t size, fmi3FMUState *FMUState) {
    INSTANCE(instance);
    (void)serializedState;
    (void)size;
    (void)FMUState;
    LD_UNSUPPORTED("fmi3DeserializeFMUState");
}

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                        size_t nUnknowns, const fmi3ValueReference knowns[],
                                        size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                        fmi3Float64 sensitivity[], size_t nSensitivity) {
    INSTANCE(instance);
    (void)unknowns;
    (void)nUnknowns;
    (void)knowns;
    (void)nKnowns;
    (void)seed;
    (void)nSeed;
    (void)sensitivity;
    (void)nSensitivity;
    LD_UNSUPPORTED("fmi3GetDirectionalDerivative");
}

fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                    size_t nUnknowns, const fmi3ValueReference knowns[],
                                    size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                    fmi3Float64 sensitivity[], size_t nSensitivity) {
    INSTANCE(instance);
    (void)unknowns;
    (void)nUnknowns;
    (void)knowns;
    (void)nKnowns;
    (void)seed;
    (void)nSeed;
    (void)sensitivity;
    (void)nSensitivity;
    LD_UNSUPPORTED("fmi3GetAdjointDerivative");
}

fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance) {
    INSTANCE(instance);
    LD_UNSUPPORTED("fmi3EnterConfigurationMode (no structural parameter)");
}

fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance) {
    INSTANCE(instance);
    LD_UNSUPPORTED("fmi3ExitConfigurationMode (no structural parameter)");
}

fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences, fmi3Float64 intervals[],
                                  fmi3IntervalQualifier qualifiers[]) {
    INSTANCE(instance);
    (void)valueReferences;
    (void)nValueReferences;
    (void)intervals;
    (void)qualifiers;
    LD_UNSUPPORTED("fmi3GetIntervalDecimal (no clock)");
}

fmi3Status fmi3GetIntervalFraction(fmi3Instance instance,
                                   const fmi3ValueReference valueReferences[],
                                   size_t nValueReferences, fmi3UInt64 counters[],
                                   fmi3UInt64 resolutions[], fmi3IntervalQualifier qualifiers[]) {
    INSTANCE(instance);
    (void)valueReferences;
    (void)nValueReferences;
    (void)counters;
    (void)resolutions;
    (void)qualifiers;
    LD_UNSUPPORTED("fmi3GetIntervalFraction (no clock)");
}

fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                               size_t nValueReferences, fmi3Float64 shifts[]) {
    INSTANCE(instance);
    (void)valueReferences;
    (void)nValueReferences;
    (void)shifts;
    LD_UNSUPPORTED("fmi3GetShiftDecimal (no clock)");
}

fmi3Status fmi3GetShiftFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                size_t nValueReferences, fmi3UInt64 counters[],
                                fmi3UInt64 resolutions[]) {
    INSTANCE(instance);
    (void)valueReferences;
    (void)nValueReferences;
    (void)counters;
    (void)resolutions;
    LD_UNSUPPORTED("fmi3GetShiftFraction (no clock)");
}

fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences, const fmi3Float64 intervals[]) {
    INSTANCE(instance);
    (void)valueReferences;
    (void)nValueReferences;
    (void)intervals;
    LD_UNSUPPORTED("fmi3SetIntervalDecimal (no clock)");
}

fmi3Status fmi3SetIntervalFraction(fmi3Instance instance,
                                   const fmi3ValueReference valueReferences[],
                                   size_t nValueReferences, const fmi3UInt64 counters[],
                                   const fmi3UInt64 resolutions[]) {
    INSTANCE(instance);
    (void)valueReferences;
    (void)nValueReferences;
    (void)counters;
    (void)resolutions;
    LD_UNSUPPORTED("fmi3SetIntervalFraction (no clock)");
}

fmi3Status fmi3SetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                               size_t nValueReferences, const fmi3Float64 shifts[]) {
    INSTANCE(instance);
    (void)valueReferences;
    (void)nValueReferences;
    (void)shifts;
    LD_UNSUPPORTED("fmi3SetShiftDecimal (no clock)");
}

fmi3Status fmi3SetShiftFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                size_t nValueReferences, const fmi3UInt64 counters[],
                                const fmi3UInt64 resolutions[]) {
    INSTANCE(instance);
    (void)valueReferences;
    (void)nValueReferences;
    (void)counters;
    (void)resolutions;
    LD_UNSUPPORTED("fmi3SetShiftFraction (no clock)");
}

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance) {
    INSTANCE(instance);
    return fmi3OK;
}

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean *discreteStatesNeedUpdate,
                                    fmi3Boolean *terminateSimulation,
                                    fmi3Boolean *nominalsOfContinuousStatesChanged,
                                    fmi3Boolean *valuesOfContinuousStatesChanged,
                                    fmi3Boolean *nextEventTimeDefined,
                                    fmi3Float64 *nextEventTime) {
    INSTANCE(instance);
    if (discreteStatesNeedUpdate) *discreteStatesNeedUpdate = fmi3False;
    if (terminateSimulation) *terminateSimulation = fmi3False;
    if (nominalsOfContinuousStatesChanged) *nominalsOfContinuousStatesChanged = fmi3False;
    if (valuesOfContinuousStatesChanged) *valuesOfContinuousStatesChanged = fmi3False;
    if (nextEventTimeDefined) *nextEventTimeDefined = fmi3False;
    if (nextEventTime) *nextEventTime = 0.0;
    return fmi3OK;
}

/* ------------------------------------------------------------------ Model Exchange */

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) {
    INSTANCE(instance);
    return fmi3OK;
}

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance,
                                       fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean *enterEventMode,
                                       fmi3Boolean *terminateSimulation) {
    INSTANCE(instance);
    (void)noSetFMUStatePriorToCurrentPoint;
    if (enterEventMode) *enterEventMode = fmi3False;
    if (terminateSimulation) *terminateSimulation = fmi3False;
    return fmi3OK;
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time) {
    INSTANCE(instance);
    if (!isfinite(time)) {
        ld_log(s, 1, "fmi3SetTime: the time %g is not finite", time);
        return fmi3Error;
    }
    s->time = time;
    s->qdd_valid = 0;
    return fmi3OK;
}

static int fmi3_check_states(LdInstance *s, size_t n, const char *fn) {
    if (n != 2 * (size_t)LD_N) {
        ld_log(s, 1, "%s: %lu continuous states given; this model has %d", fn, (unsigned long)n,
               2 * LD_N);
        return 1;
    }
    return 0;
}

fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                   size_t nContinuousStates) {
    size_t i;
    INSTANCE(instance);
    if (fmi3_check_states(s, nContinuousStates, "fmi3SetContinuousStates")) return fmi3Error;
    for (i = 0; i < nContinuousStates; i++)
        if (ld_set(s, LD_VR_Q + (unsigned)i, continuousStates[i])) return fmi3Error;
    return fmi3OK;
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                             size_t nContinuousStates) {
    int i;
    INSTANCE(instance);
    if (fmi3_check_states(s, nContinuousStates, "fmi3GetContinuousStateDerivatives"))
        return fmi3Error;
    if (ld_update(s)) return fmi3Error;
    for (i = 0; i < LD_N; i++) {
        derivatives[i] = s->qd[i];
        derivatives[LD_N + i] = s->qdd[i];
    }
    return fmi3OK;
}

fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[],
                                  size_t nEventIndicators) {
    INSTANCE(instance);
    (void)eventIndicators;
    if (nEventIndicators == 0) return fmi3OK;
    ld_log(s, 1, "fmi3GetEventIndicators: this model has no event indicator");
    return fmi3Error;
}

fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[],
                                   size_t nContinuousStates) {
    int i;
    INSTANCE(instance);
    if (fmi3_check_states(s, nContinuousStates, "fmi3GetContinuousStates")) return fmi3Error;
    for (i = 0; i < LD_N; i++) {
        continuousStates[i] = s->q[i];
        continuousStates[LD_N + i] = s->qd[i];
    }
    return fmi3OK;
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                             size_t nContinuousStates) {
    size_t i;
    INSTANCE(instance);
    if (fmi3_check_states(s, nContinuousStates, "fmi3GetNominalsOfContinuousStates"))
        return fmi3Error;
    for (i = 0; i < nContinuousStates; i++) nominals[i] = 1.0;
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators) {
    INSTANCE(instance);
    if (nEventIndicators) *nEventIndicators = 0;
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates) {
    INSTANCE(instance);
    if (nContinuousStates) *nContinuousStates = 2 * (size_t)LD_N;
    return fmi3OK;
}

/* ------------------------------------------------------------------ Co-Simulation */

fmi3Status fmi3EnterStepMode(fmi3Instance instance) {
    INSTANCE(instance);
    return fmi3OK;
}

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance,
                                    const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Int32 orders[],
                                    fmi3Float64 values[], size_t nValues) {
    INSTANCE(instance);
    (void)valueReferences;
    (void)orders;
    (void)values;
    (void)nValues;
    if (nValueReferences == 0) return fmi3OK;
    LD_UNSUPPORTED("fmi3GetOutputDerivatives");
}

fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                      fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                      fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                      fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime) {
    int bad;
    INSTANCE(instance);
    (void)noSetFMUStatePriorToCurrentPoint;
    if (eventHandlingNeeded) *eventHandlingNeeded = fmi3False;
    if (terminateSimulation) *terminateSimulation = fmi3False;
    if (earlyReturn) *earlyReturn = fmi3False;
    if (!isfinite(currentCommunicationPoint)) {
        ld_log(s, 1, "fmi3DoStep: the communication point %g is not finite",
               currentCommunicationPoint);
        return fmi3Error;
    }
    bad = ld_do_step(s, currentCommunicationPoint, communicationStepSize);
    if (lastSuccessfulTime) *lastSuccessfulTime = s->time;
    return bad ? fmi3Error : fmi3OK;
}

fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime) {
    INSTANCE(instance);
    (void)clockReference;
    (void)activationTime;
    LD_UNSUPPORTED("fmi3ActivateModelPartition (no Scheduled Execution)");
}
