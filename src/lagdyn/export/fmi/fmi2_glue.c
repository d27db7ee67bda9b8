/* lagdyn FMI 2.0 glue: Model Exchange and Co-Simulation over lagdyn_fmu_core.h.
 *
 * Every function of fmi2Functions.h is defined; FMU state, directional derivatives and
 * input/output derivatives are not supported (fmi2Error with a log message). */
#include "fmi2Functions.h"
#include "lagdyn_fmu_core.h"

typedef struct {
    fmi2CallbackFunctions callbacks; /* a copy: the importer's struct may be temporary */
    int cosim;
} Fmi2Glue;

static void fmi2_forward_log(void *self, int error, const char *message) {
    LdInstance *s = (LdInstance *)self;
    Fmi2Glue *g = (Fmi2Glue *)s->glue;
    if (g && g->callbacks.logger)
        /* the message goes as an argument, never as the format */
        g->callbacks.logger(g->callbacks.componentEnvironment, s->name,
                            error ? fmi2Error : fmi2OK, error ? "logStatusError" : "logEvents",
                            "%s", message);
}

#define INSTANCE(ptr)                                                                         \
    LdInstance *s = (LdInstance *)(ptr);                                                      \
    if (!s) return fmi2Error

#define LD_UNSUPPORTED(what)                                                                   \
    do {                                                                                      \
        ld_log(s, 1, "%s is not supported by this FMU", what);                                \
        return fmi2Error;                                                                     \
    } while (0)

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }

const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[]) {
    INSTANCE(c);
    (void)nCategories;
    (void)categories;
    s->logging_on = loggingOn ? 1 : 0;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn) {
    LdInstance *s;
    Fmi2Glue *g;
    (void)fmuResourceLocation;
    (void)visible;
    if (!functions || !functions->logger) return NULL;
    if (!fmuGUID || strcmp(fmuGUID, LD_INSTANTIATION_TOKEN) != 0) {
        functions->logger(functions->componentEnvironment, instanceName ? instanceName : "",
                          fmi2Error, "logStatusError", "%s",
                          "GUID does not match this FMU's modelDescription.xml");
        return NULL;
    }
    s = ld_new(instanceName ? instanceName : "");
    g = (Fmi2Glue *)calloc(1, sizeof(Fmi2Glue));
    if (!s || !g) {
        ld_free(s);
        free(g);
        functions->logger(functions->componentEnvironment, instanceName ? instanceName : "",
                          fmi2Error, "logStatusError", "%s", "out of memory");
        return NULL;
    }
    g->callbacks = *functions;
    g->cosim = fmuType == fmi2CoSimulation;
    s->glue = g;
    s->log = fmi2_forward_log;
    s->logging_on = loggingOn ? 1 : 0;
    return (fmi2Component)s;
}

void fmi2FreeInstance(fmi2Component c) {
    LdInstance *s = (LdInstance *)c;
    if (!s) return;
    free(s->glue);
    ld_free(s);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime) {
    INSTANCE(c);
    (void)toleranceDefined;
    (void)tolerance;
    (void)stopTimeDefined;
    (void)stopTime;
    return ld_start(s, startTime) ? fmi2Error : fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
    INSTANCE(c);
    return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
    INSTANCE(c);
    return ld_update(s) ? fmi2Error : fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component c) {
    INSTANCE(c);
    return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component c) {
    INSTANCE(c);
    ld_reset(s);
    return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[]) {
    size_t i;
    INSTANCE(c);
    for (i = 0; i < nvr; i++)
        if (ld_get(s, vr[i], &value[i])) return fmi2Error;
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[]) {
    size_t i;
    INSTANCE(c);
    for (i = 0; i < nvr; i++)
        if (ld_set(s, vr[i], value[i])) return fmi2Error;
    return fmi2OK;
}

#define LD_NO_VARIABLES(fn, type, qual)                                                        \
    fmi2Status fn(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,                 \
                  qual type value[]) {                                                        \
        INSTANCE(c);                                                                          \
        (void)value;                                                                          \
        if (nvr == 0) return fmi2OK;                                                          \
        ld_log(s, 1, #fn ": this model has no variable of this type (value reference %u)",    \
               (unsigned)vr[0]);                                                              \
        return fmi2Error;                                                                     \
    }

LD_NO_VARIABLES(fmi2GetInteger, fmi2Integer, )
LD_NO_VARIABLES(fmi2GetBoolean, fmi2Boolean, )
LD_NO_VARIABLES(fmi2GetString, fmi2String, )
LD_NO_VARIABLES(fmi2SetInteger, fmi2Integer, const)
LD_NO_VARIABLES(fmi2SetBoolean, fmi2Boolean, const)
LD_NO_VARIABLES(fmi2SetString, fmi2String, const)

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate) {
    INSTANCE(c);
    (void)FMUstate;
    LD_UNSUPPORTED("fmi2GetFMUstate");
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate) {
    INSTANCE(c);
    (void)FMUstate;
    LD_UNSUPPORTED("fmi2SetFMUstate");
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate) {
    INSTANCE(c);
    (void)FMUstate;
    LD_UNSUPPORTED("fmi2FreeFMUstate");
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size) {
    INSTANCE(c);
    (void)FMUstate;
    (void)size;
    LD_UNSUPPORTED("fmi2SerializedFMUstateSize");
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte state[],
                                 size_t size) {
    INSTANCE(c);
    (void)FMUstate;
    (void)state;
    (void)size;
    LD_UNSUPPORTED("fmi2SerializeFMUstate");
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[],
                                   size_t size, fmi2FMUstate *FMUstate) {
    INSTANCE(c);
    (void)serializedState;
    (void)size;
    (void)FMUstate;
    LD_UNSUPPORTED("fmi2DeSerializeFMUstate");
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[],
                                        size_t nUnknown, const fmi2ValueReference vKnown_ref[],
                                        size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[]) {
    INSTANCE(c);
    (void)vUnknown_ref;
    (void)nUnknown;
    (void)vKnown_ref;
    (void)nKnown;
    (void)dvKnown;
    (void)dvUnknown;
    LD_UNSUPPORTED("fmi2GetDirectionalDerivative");
}

/* ------------------------------------------------------------------ Model Exchange */

fmi2Status fmi2EnterEventMode(fmi2Component c) {
    INSTANCE(c);
    return fmi2OK;
}

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *info) {
    INSTANCE(c);
    if (info) {
        info->newDiscreteStatesNeeded = fmi2False;
        info->terminateSimulation = fmi2False;
        info->nominalsOfContinuousStatesChanged = fmi2False;
        info->valuesOfContinuousStatesChanged = fmi2False;
        info->nextEventTimeDefined = fmi2False;
        info->nextEventTime = 0.0;
    }
    return fmi2OK;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) {
    INSTANCE(c);
    return fmi2OK;
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode,
                                       fmi2Boolean *terminateSimulation) {
    INSTANCE(c);
    (void)noSetFMUStatePriorToCurrentPoint;
    if (enterEventMode) *enterEventMode = fmi2False;
    if (terminateSimulation) *terminateSimulation = fmi2False;
    return fmi2OK;
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time) {
    INSTANCE(c);
    if (!isfinite(time)) {
        ld_log(s, 1, "fmi2SetTime: the time %g is not finite", time);
        return fmi2Error;
    }
    s->time = time;
    s->qdd_valid = 0;
    return fmi2OK;
}

static int fmi2_check_states(LdInstance *s, size_t n, const char *fn) {
    if (n != 2 * (size_t)LD_N) {
        ld_log(s, 1, "%s: %lu continuous states given; this model has %d", fn, (unsigned long)n,
               2 * LD_N);
        return 1;
    }
    return 0;
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx) {
    size_t i;
    INSTANCE(c);
    if (fmi2_check_states(s, nx, "fmi2SetContinuousStates")) return fmi2Error;
    for (i = 0; i < nx; i++)
        if (ld_set(s, LD_VR_Q + (unsigned)i, x[i])) return fmi2Error;
    return fmi2OK;
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx) {
    int i;
    INSTANCE(c);
    if (fmi2_check_states(s, nx, "fmi2GetDerivatives")) return fmi2Error;
    if (ld_update(s)) return fmi2Error;
    for (i = 0; i < LD_N; i++) {
        derivatives[i] = s->qd[i];
        derivatives[LD_N + i] = s->qdd[i];
    }
    return fmi2OK;
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[], size_t ni) {
    INSTANCE(c);
    (void)eventIndicators;
    if (ni == 0) return fmi2OK;
    ld_log(s, 1, "fmi2GetEventIndicators: this model has no event indicator");
    return fmi2Error;
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx) {
    int i;
    INSTANCE(c);
    if (fmi2_check_states(s, nx, "fmi2GetContinuousStates")) return fmi2Error;
    for (i = 0; i < LD_N; i++) {
        x[i] = s->q[i];
        x[LD_N + i] = s->qd[i];
    }
    return fmi2OK;
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx) {
    size_t i;
    INSTANCE(c);
    if (fmi2_check_states(s, nx, "fmi2GetNominalsOfContinuousStates")) return fmi2Error;
    for (i = 0; i < nx; i++) x_nominal[i] = 1.0;
    return fmi2OK;
}

/* ------------------------------------------------------------------ Co-Simulation */

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                       size_t nvr, const fmi2Integer order[],
                                       const fmi2Real value[]) {
    INSTANCE(c);
    (void)vr;
    (void)order;
    (void)value;
    if (nvr == 0) return fmi2OK;
    LD_UNSUPPORTED("fmi2SetRealInputDerivatives");
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[],
                                        fmi2Real value[]) {
    INSTANCE(c);
    (void)vr;
    (void)order;
    (void)value;
    if (nvr == 0) return fmi2OK;
    LD_UNSUPPORTED("fmi2GetRealOutputDerivatives");
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
    INSTANCE(c);
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!isfinite(currentCommunicationPoint)) {
        ld_log(s, 1, "fmi2DoStep: the communication point %g is not finite",
               currentCommunicationPoint);
        return fmi2Error;
    }
    return ld_do_step(s, currentCommunicationPoint, communicationStepSize) ? fmi2Error : fmi2OK;
}

fmi2Status fmi2CancelStep(fmi2Component c) {
    INSTANCE(c);
    LD_UNSUPPORTED("fmi2CancelStep (doStep never runs asynchronously)");
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind kind, fmi2Status *value) {
    INSTANCE(c);
    (void)kind;
    (void)value;
    LD_UNSUPPORTED("fmi2GetStatus");
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind kind, fmi2Real *value) {
    INSTANCE(c);
    if (kind == fmi2LastSuccessfulTime && value) {
        *value = s->time;
        return fmi2OK;
    }
    LD_UNSUPPORTED("fmi2GetRealStatus of this kind");
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind kind, fmi2Integer *value) {
    INSTANCE(c);
    (void)kind;
    (void)value;
    LD_UNSUPPORTED("fmi2GetIntegerStatus");
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind kind, fmi2Boolean *value) {
    INSTANCE(c);
    (void)kind;
    (void)value;
    LD_UNSUPPORTED("fmi2GetBooleanStatus");
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind kind, fmi2String *value) {
    INSTANCE(c);
    (void)kind;
    (void)value;
    LD_UNSUPPORTED("fmi2GetStringStatus");
}
