/*
 * timing/dramcfg.h — the DRAM timing parameters of -gpgpu_dram_timing_opt, parsed once
 * (private to timing/: dram.c owns the parser, addrdec.c reads the bank geometry from it).
 *
 * Three spellings are accepted:
 *   positional  nbk:tCCD:tRRD:tRCD:tRAS:tRP:tRC:CL:WL:tCDLR:tWR[:nbkgrp[:tCCDL[:tRTPL]]]
 *               (GPGPU-Sim's legacy order; the last three default to 1, 0, 0)
 *   named       nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:
 *               CCDL=3:RTPL=2 — GPGPU-Sim's keys, separated by ':' or ';', in any order; the
 *               first eleven are required, nbkgrp/CCDL/RTPL default to 1/0/0
 *   preset      a memory type name (case-insensitive): GDDR5, GDDR6, GDDR6X, GDDR7, HBM2, HBM2e,
 *               HBM3, HBM3e — the sets of tm_dram_presets (sources in dram.c)
 * All values are DRAM command-clock cycles except nbk and nbkgrp.
 */
#ifndef PTXEMU_TIMING_DRAMCFG_H
#define PTXEMU_TIMING_DRAMCFG_H

#include <stddef.h>
#include <stdint.h>

struct tm_dram_timing {
    uint32_t nbk, tCCD, tRRD, tRCD, tRAS, tRP, tRC, CL, WL, tCDLR, tWR, nbkgrp, tCCDL, tRTPL;
};

/* A named timing set: the memory type, its -gpgpu_dram_timing_opt value, the command clock it
 * is meant for (MHz) and where the numbers come from. */
struct tm_dram_preset {
    const char *name;
    const char *timing;
    double clock_mhz;
    const char *source;
};
extern const struct tm_dram_preset tm_dram_presets[];
extern const size_t tm_dram_preset_count;

/* Parse -gpgpu_dram_timing_opt `opt` into *t. 0, or -EINVAL with a message naming the option in
 * err (unknown key, missing key, a value that is not a non-negative integer, too few/many
 * positional fields, nbk or nbkgrp zero, nbk not a multiple of nbkgrp, more than 256 banks). */
int tm_dram_timing_parse(const char *opt, struct tm_dram_timing *t, char *err, size_t errlen);

#endif
