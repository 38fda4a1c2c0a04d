/*
 * tests/unit/error_test.c — CUDA error numbers in the runtime core (runtime/error.c): the
 * cudaError_t a GPU returns for each kind of kernel fault, by number and by name, and the
 * name/message table of cuda_errors.h. The interpreter reports trap kinds only; this is where
 * they become CUDA errors.
 */
#include "runtime/rt.h"
#include "tests/tap.h"

int main(void)
{
    static const struct {
        enum trap_kind k;
        int err;
        const char *name;
    } want[] = {
        {TRAP_NONE, 0, "cudaSuccess"},
        {TRAP_OOB, 700, "cudaErrorIllegalAddress"},
        {TRAP_MISALIGNED, 716, "cudaErrorMisalignedAddress"},
        {TRAP_READONLY, 700, "cudaErrorIllegalAddress"},
        {TRAP_TRAP, 719, "cudaErrorLaunchFailure"},
        {TRAP_BRKPT, 719, "cudaErrorLaunchFailure"},
        {TRAP_ASSERT, 710, "cudaErrorAssert"},
        {TRAP_DEADLOCK, 702, "cudaErrorLaunchTimeout"},
        {TRAP_BUDGET, 702, "cudaErrorLaunchTimeout"},
        {TRAP_ILLEGAL, 715, "cudaErrorIllegalInstruction"},
        {TRAP_STACK, 714, "cudaErrorHardwareStackError"},
        {TRAP_HEAP, 719, "cudaErrorLaunchFailure"},
    };
    _Static_assert(sizeof want / sizeof want[0] == TRAP_HEAP + 1, "every trap kind");
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int e = rt_trap_error(want[i].k);
        is_int(e, want[i].err, "trap kind %d -> %d", (int)want[i].k, want[i].err);
        is_str(rt_error_name(e), want[i].name, "trap kind %d -> %s", (int)want[i].k,
               want[i].name);
    }

    is_str(rt_error_name(RT_ERR_COOPERATIVE_LAUNCH_TOO_LARGE),
           "cudaErrorCooperativeLaunchTooLarge", "720 is cudaErrorCooperativeLaunchTooLarge");
    is_str(rt_error_string(RT_ERR_INVALID_VALUE), "invalid argument", "message of error 1");
    is_str(rt_error_string(RT_ERR_ILLEGAL_ADDRESS), "an illegal memory access was encountered",
           "message of error 700");
    is_str(rt_error_name(RT_ERR_NOT_SUPPORTED), "cudaErrorNotSupported", "name of error 801");
    ok(rt_error_name(12345) == NULL && rt_error_string(-1) == NULL, "no such error: NULL");
    return done_testing();
}
