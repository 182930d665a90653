/* SPDX-License-Identifier: MIT */
/*
 * timelinefs engine, all of it: every module's header.  A caller includes
 * the headers of the modules it uses (engine/DIR/NAME.h, each opening with
 * what its module owns); this one is for a tool that wants the whole engine
 * at once.  The folders are its parts:
 *   util/      diagnostics, value parsing, text buffers, seeded random streams
 *   host/      parsers of the host's /proc, /sys and kernel config texts
 *   timeline/  the model, the byte layout, timecode and the .tl, EDL and
 *              OTIO formats, and loading a timeline file
 *   media/     media files: resolving them, and the generator that makes them
 *   io/        the injected clock and backing I/O, real and fault-injecting
 *   play/      the player (one stream) and what only the mount's streams use
 *
 * Rules of every module: pure C (no FUSE, no SQLite, no globals); time and
 * backing I/O come through struct eng_io; functions return 0 (or a count)
 * on success and a negative errno on failure, results through
 * out-parameters; problems in user input are added to a struct eng_diag
 * as "FILE:LINE: reason", every one found, not just the first.
 */
#ifndef ENGINE_H
#define ENGINE_H

#include "util/diag.h"
#include "util/rng.h"
#include "util/strbuf.h"
#include "util/values.h"
#include "host/env.h"
#include "host/kconfig.h"
#include "timeline/edl.h"
#include "timeline/layout.h"
#include "timeline/load.h"
#include "timeline/model.h"
#include "timeline/otio.h"
#include "timeline/timecode.h"
#include "timeline/tl.h"
#include "media/gen.h"
#include "media/media.h"
#include "io/inject.h"
#include "io/io.h"
#include "play/evict.h"
#include "play/pieces.h"
#include "play/player.h"
#include "play/status.h"

#endif /* ENGINE_H */
