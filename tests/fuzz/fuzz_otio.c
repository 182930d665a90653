/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the OpenTimelineIO parser: any bytes must give a
 * timeline or messages, never a crash, leak, hang or undefined behaviour.
 *   clang -fsanitize=fuzzer,address,undefined -Iengine -D_GNU_SOURCE \
 *     tests/fuzz/fuzz_otio.c engine/\*.c $(pkg-config --cflags --libs json-c) \
 *     -lpthread && make fuzz-seed && ./a.out build/fuzz/seed/otio
 */
#include <stddef.h>
#include <stdint.h>

#include "timeline/load.h"
#include "timeline/model.h"
#include "timeline/otio.h"
#include "util/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	eng_load_options_default(&o);
	/* strict mode from the size, so that the JSON itself stays whole */
	o.strict = size & 1;
	eng_otio_parse("fuzz.otio", "fuzz", (const char *)data, size, &o, &tl,
		       &d);
	eng_tl_free(tl);
	eng_diag_free(&d);
	return 0;
}
