-- The change in a step's MB/s, in % of label @a's, that the storage's
-- own change predicts, from the --calibrate-work rows of labels @a and @b
-- (sqlite3 -cmd ".parameter set @a \"'LABEL'\"" ... DB <this file).
--
-- A step's wall time is the storage's time for the step's work plus time
-- that is not the storage's (readers starting, their opens, the last
-- frames through the mount): 0.20-0.24 s of a 2.6 s step on a slower
-- host, the same at 20 and 18.8 MiB/s (docs/lab.md, ground truth 4).  A
-- storage change adds its seconds to the storage's part only, so the
-- steps' change is A's mean step, w_A, against w_A plus the seconds the
-- calibrations say the same bytes take more at B:
--   w_A / (w_A + bytes_A * (1 / B_cal(b) - 1 / B_cal(a))) - 1
-- where the calibrations' own ratio, B_cal(b) / B_cal(a) - 1, holds for
-- a step with nothing but the storage in it.
-- Prints: the predicted change %|the calibrations' ratio %|w_A s|the
-- steps' time not the storage's at A, s|the same at B, s
with
cal(label, bps) as (
	select label, avg(bytes_per_s)
	from calibration where label in (@a, @b) group by label
),
step(label, wall, bytes) as (
	select label, avg(wall_s), avg(bytes)
	from bench_step_summary where label in (@a, @b) and repetition > 0
	group by label
)
select
	100.0 * sa.wall / (sa.wall + sa.bytes * (1.0 / cb.bps - 1.0 / ca.bps)) - 100,
	100.0 * cb.bps / ca.bps - 100,
	sa.wall,
	sa.wall - sa.bytes / ca.bps,
	sb.wall - sb.bytes / cb.bps
from cal ca, cal cb, step sa, step sb
where ca.label = @a and cb.label = @b and sa.label = @a and sb.label = @b;
