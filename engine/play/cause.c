/* SPDX-License-Identifier: MIT */
/*
 * late_access's cause (schema/30-analysis.sql) on one stream's rows as
 * they come: a backlog runs from a read issued within 1 ms of its
 * schedule to the next; each read's idle time (issued late with no read
 * of the stream in flight) is split by its evidence into the timer's and
 * the reader's shares.  The view is the reference: test_player checks
 * the two agree on the rows it makes.
 */
#include "play/cause.h"
#include "play/player.h"

/* a filler's wake-up is never exact: within this, on time */
#define ON_TIME_NS 1000000ULL

const char *eng_cause_name(enum eng_cause c)
{
	static const char *const names[ENG_CAUSE_N] = {
		"", "issue", "timer", "reader", "storage", "recording",
	};

	return (unsigned)c < ENG_CAUSE_N ? names[c] : "";
}

/* The time row a waited with nothing of its stream in flight. */
static uint64_t idle_of(const struct eng_cause_state *c,
			const struct eng_access *a)
{
	uint64_t last = c->max_done <= a->issued_ns ? c->max_done : 0;

	if (a->issued_ns <= a->sched_ns)
		return 0;
	if (last > a->sched_ns)
		return a->issued_ns - last > ON_TIME_NS ?
		       a->issued_ns - last : 0;
	return a->issued_ns - a->sched_ns;
}

enum eng_cause eng_cause_row(struct eng_cause_state *c,
			     const struct eng_access *a, uint64_t ring_frames)
{
	uint64_t idle, timer = 0, reader = 0, rest;
	enum eng_cause cause = ENG_CAUSE_NONE;

	if (a->op == ENG_OP_AWAIT)
		return a->done_ns > a->due_ns ? ENG_CAUSE_RECORDING :
						 ENG_CAUSE_NONE;
	idle = idle_of(c, a);
	if (a->filled && a->wake_ns > 0)
		timer = idle < a->wake_ns ? idle : a->wake_ns;
	if (a->filled && ring_frames && (uint64_t)a->ring_fill >= ring_frames)
		reader = idle - timer;
	if (a->issued_ns - a->sched_ns <= ON_TIME_NS ||
	    a->issued_ns < a->sched_ns)
		c->idle_ns = c->timer_ns = c->reader_ns = 0;
	c->idle_ns += idle;
	c->timer_ns += timer;
	c->reader_ns += reader;
	if (a->done_ns > a->due_ns) {
		rest = c->idle_ns - c->timer_ns - c->reader_ns;
		if (a->done_ns - a->issued_ns > a->due_ns - a->sched_ns ||
		    a->done_ns - c->idle_ns > a->due_ns)
			cause = ENG_CAUSE_STORAGE;
		else if (c->timer_ns > 0 && c->timer_ns >= c->reader_ns &&
			 c->timer_ns >= rest)
			cause = ENG_CAUSE_TIMER;
		else if (c->reader_ns > 0 && c->reader_ns >= rest)
			cause = ENG_CAUSE_READER;
		else
			cause = ENG_CAUSE_ISSUE;
	}
	if (a->done_ns > c->max_done)
		c->max_done = a->done_ns;
	return cause;
}

/* 1000 * 10^(k / 20) ns, a table (no libm): bin b's lower edge is
 * k = 2b, its geometric middle k = 2b + 1 */
static const uint64_t hr_step[2 * ENG_HR_SIDE + 1] = {
	1000ULL, 1122ULL, 1259ULL, 1413ULL, 1585ULL, 1778ULL, 1995ULL,
	2239ULL, 2512ULL, 2818ULL, 3162ULL, 3548ULL, 3981ULL, 4467ULL,
	5012ULL, 5623ULL, 6310ULL, 7079ULL, 7943ULL, 8913ULL, 10000ULL,
	11220ULL, 12589ULL, 14125ULL, 15849ULL, 17783ULL, 19953ULL, 22387ULL,
	25119ULL, 28184ULL, 31623ULL, 35481ULL, 39811ULL, 44668ULL, 50119ULL,
	56234ULL, 63096ULL, 70795ULL, 79433ULL, 89125ULL, 100000ULL,
	112202ULL, 125893ULL, 141254ULL, 158489ULL, 177828ULL, 199526ULL,
	223872ULL, 251189ULL, 281838ULL, 316228ULL, 354813ULL, 398107ULL,
	446684ULL, 501187ULL, 562341ULL, 630957ULL, 707946ULL, 794328ULL,
	891251ULL, 1000000ULL, 1122018ULL, 1258925ULL, 1412538ULL,
	1584893ULL, 1778279ULL, 1995262ULL, 2238721ULL, 2511886ULL,
	2818383ULL, 3162278ULL, 3548134ULL, 3981072ULL, 4466836ULL,
	5011872ULL, 5623413ULL, 6309573ULL, 7079458ULL, 7943282ULL,
	8912509ULL, 10000000ULL, 11220185ULL, 12589254ULL, 14125375ULL,
	15848932ULL, 17782794ULL, 19952623ULL, 22387211ULL, 25118864ULL,
	28183829ULL, 31622777ULL, 35481339ULL, 39810717ULL, 44668359ULL,
	50118723ULL, 56234133ULL, 63095734ULL, 70794578ULL, 79432823ULL,
	89125094ULL, 100000000ULL, 112201845ULL, 125892541ULL, 141253754ULL,
	158489319ULL, 177827941ULL, 199526231ULL, 223872114ULL, 251188643ULL,
	281838293ULL, 316227766ULL, 354813389ULL, 398107171ULL, 446683592ULL,
	501187234ULL, 562341325ULL, 630957344ULL, 707945784ULL, 794328235ULL,
	891250938ULL, 1000000000ULL, 1122018454ULL, 1258925412ULL,
	1412537545ULL, 1584893192ULL, 1778279410ULL, 1995262315ULL,
	2238721139ULL, 2511886432ULL, 2818382931ULL, 3162277660ULL,
	3548133892ULL, 3981071706ULL, 4466835922ULL, 5011872336ULL,
	5623413252ULL, 6309573445ULL, 7079457844ULL, 7943282347ULL,
	8912509381ULL, 10000000000ULL, 11220184543ULL, 12589254118ULL,
	14125375446ULL, 15848931925ULL, 17782794100ULL, 19952623150ULL,
	22387211386ULL, 25118864315ULL, 28183829313ULL, 31622776602ULL,
	35481338923ULL, 39810717055ULL, 44668359215ULL, 50118723363ULL,
	56234132519ULL, 63095734448ULL, 70794578438ULL, 79432823472ULL,
	89125093813ULL, 100000000000ULL, 112201845430ULL, 125892541179ULL,
	141253754462ULL, 158489319246ULL, 177827941004ULL, 199526231497ULL,
	223872113857ULL, 251188643151ULL, 281838293126ULL, 316227766017ULL,
	354813389234ULL, 398107170553ULL, 446683592151ULL, 501187233627ULL,
	562341325190ULL, 630957344480ULL, 707945784384ULL, 794328234724ULL,
	891250938134ULL, 1000000000000ULL
};

/* The bin of |ns| >= 1 us on one side: 10 a decade from 1 us. */
static unsigned side_bin(uint64_t ns)
{
	unsigned b = 0;

	while (b + 1 < ENG_HR_SIDE && ns >= hr_step[2 * (b + 1)])
		b++;
	return b;
}

void eng_headroom_add(struct eng_headroom *h, int64_t ns)
{
	unsigned i;

	if (!h->n || ns < h->min_ns)
		h->min_ns = ns;
	h->n++;
	h->sum_ns += ns;
	if (ns > -1000 && ns < 1000)
		i = ENG_HR_SIDE;
	else if (ns < 0)
		i = ENG_HR_SIDE - 1 - side_bin((uint64_t)-ns);
	else
		i = ENG_HR_SIDE + 1 + side_bin((uint64_t)ns);
	h->bins[i]++;
}

void eng_headroom_merge(struct eng_headroom *dst,
			const struct eng_headroom *src)
{
	unsigned i;

	if (!src->n)
		return;
	if (!dst->n || src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	dst->n += src->n;
	dst->sum_ns += src->sum_ns;
	for (i = 0; i < ENG_HR_BINS; i++)
		dst->bins[i] += src->bins[i];
}

int64_t eng_headroom_quantile(const struct eng_headroom *h, double q)
{
	uint64_t rank, seen = 0;
	unsigned i;

	if (!h->n)
		return 0;
	rank = (uint64_t)((double)h->n * q);
	if ((double)rank < (double)h->n * q)
		rank++;
	if (rank <= 1)
		return h->min_ns;
	for (i = 0; i < ENG_HR_BINS; i++) {
		seen += h->bins[i];
		if (seen >= rank)
			break;
	}
	if (i == ENG_HR_SIDE)
		return 0;
	if (i > ENG_HR_SIDE)
		return (int64_t)hr_step[2 * (i - ENG_HR_SIDE - 1) + 1];
	return -(int64_t)hr_step[2 * (ENG_HR_SIDE - 1 - i) + 1];
}
