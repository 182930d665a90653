/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the option-value parsers (frame rates, sizes,
 * integers, pace, backing, the generator's seconds): any string gives a
 * value or an error, never a crash or undefined behaviour, and a value
 * that parses is in range.
 *   make fuzz (tests/run-fuzz.sh) builds and runs it on
 *   build/fuzz/seed/values (tests/fuzz/corpus/values)
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "media/genplan.h"
#include "util/values.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum eng_backing backing;
	struct eng_pace pace;
	struct eng_fps fps;
	uint64_t u;
	int64_t i;
	char *s;

	/* option values are C strings: stop at the first NUL */
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (eng_parse_fps(s, &fps) == 0 && (fps.num == 0 || fps.den == 0))
		__builtin_trap();
	eng_parse_size(s, &u);
	if (eng_parse_int(s, &i) == 0 && i < 0)
		__builtin_trap();
	if (eng_pace_parse(s, &pace) == 0 && !(pace.speed > 0))
		__builtin_trap();
	if (eng_backing_parse(s, &backing) == 0 &&
	    backing != ENG_BACKING_DIRECT && backing != ENG_BACKING_BUFFERED &&
	    backing != ENG_BACKING_DONTNEED)
		__builtin_trap();
	if (eng_gen_parse_seconds(s, &i) == 0 && i < 0)
		__builtin_trap();
	free(s);
	return 0;
}
