/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the CMX 3600 EDL parser: any bytes must give a
 * timeline or messages, never a crash, leak or undefined behaviour.
 *   clang -fsanitize=fuzzer,address,undefined -Iengine -D_GNU_SOURCE \
 *     tests/fuzz/fuzz_edl.c engine/\*.c $(pkg-config --cflags --libs json-c) \
 *     -lpthread && make fuzz-seed && ./a.out build/fuzz/seed/edl
 */
#include <stddef.h>
#include <stdint.h>

#include "timeline/edl.h"
#include "timeline/load.h"
#include "timeline/model.h"
#include "util/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	eng_load_options_default(&o);
	/* the first byte picks the options, so that strict mode and the
	 * origins are explored too */
	if (size > 0) {
		static const char *const origin[] = {
			"min", "zero", "01:00:00:00", "01:00:00;00"
		};
		char why[128];

		o.strict = data[0] & 1;
		/* as -o edl_origin= sets it */
		eng_edl_origin_parse(origin[(data[0] >> 1) % 4], &o, why,
				     sizeof(why));
		if (data[0] & 8) {
			o.fps.num = 25;
			o.fps.den = 1;
		}
	}
	eng_edl_parse("fuzz.edl", "fuzz", (const char *)data, size, &o, &tl,
		      &d);
	eng_tl_free(tl);
	eng_diag_free(&d);
	return 0;
}
