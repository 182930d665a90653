# SPDX-License-Identifier: MIT
"""timelinefs-export --fio-iolog: the backing reads of one recorded
stream as a fio iolog (version 3), so that fio can replay the same trace
on the same files (fio --read_iolog=FILE)."""
import glob
import os

from . import db as dbm


class ExportError(Exception):
    """A failure said to the user (exit 1)."""


def media_names(track, tracks):
    """The names under which a track's files may be, the daemon's first
    (engine/timeline/model.c eng_tl_add_track): a track named like another
    plus "x" (Vx, A1x: the incoming side of a transition) reads that
    track's files, V's for Vx (and for Vxx, Vx's: V's).  Then, for a main
    track that no stream read, the name itself and its bases."""
    m = track
    while len(m) > 1 and m.endswith("x") and m[:-1] in tracks:
        m = m[:-1]
    names = [m, track]
    m = track
    while len(m) > 1 and m.endswith("x"):
        m = m[:-1]
        names.append(m)
    return names


def file_of(con, stream, media, clip, track, tracks, has_media):
    """The file of a clip and track: the media row the mount recorded
    (schema 9: real media are named in many ways), else MEDIA/CLIP.NAME.*
    with NAME from media_names (a database of an older timelinefs)."""
    if has_media:
        r = con.execute("""select m.file from media m join stream s on s.timeline_id = m.timeline_id
                           where s.id = ? and m.clip = ? and m.track = ?""",
                        (stream, clip, track)).fetchone()
        if r and r[0]:
            return os.path.join(media, r[0])
    for name in media_names(track, tracks):
        found = glob.glob(glob.escape("%s/%s.%s" % (media, clip, name)) + ".*")
        if len(found) == 1 and os.path.isfile(found[0]):
            return found[0]
    main = media_names(track, tracks)[0]
    why = "" if main == track else " (track %s reads the files of track %s)" % (track, main)
    raise ExportError("no single media file %s/%s.%s.*%s" % (media, clip, main, why))


def fio_iolog(con, path, stream):
    """The iolog's lines: "fio version 3 iolog", an add and an open per
    file, a read per access in issue order (microseconds since the
    stream's first read), a close per file."""
    r = con.execute("select r.media_dir from stream s join run r on r.id = s.run_id "
                    "where s.id = ?", (stream,)).fetchone()
    if not r or not r[0]:
        raise ExportError("no stream %d in %s" % (stream, path))
    media = r[0]
    if con.execute("select count(*) from access where stream_id = ?", (stream,)).fetchone()[0] == 0:
        raise ExportError("stream %d has no access rows (recorded with record=streams or off?)" % stream)
    # the tracks of the stream's timeline: those any stream of it in this
    # run read
    tracks = {t for t, in con.execute(
        """select distinct a.track from access a join stream s on s.id = a.stream_id
           where s.run_id = (select run_id from stream where id = ?)
             and s.timeline_id is (select timeline_id from stream where id = ?)""",
        (stream, stream))}
    has_media = dbm.has_object(con, "media")
    path_of, order = {}, []
    for clip, track in con.execute("select distinct clip, track from access where stream_id = ?",
                                   (stream,)).fetchall():
        f = file_of(con, stream, media, clip, track, tracks, has_media)
        if any(c.isspace() for c in f):
            raise ExportError("fio iologs cannot name a file with white space in it: %s" % f)
        path_of[(clip, track)] = f
        # a transition track reads the file of its main track
        if f not in order:
            order.append(f)
    lines = ["fio version 3 iolog"]
    lines += ["0 %s add" % f for f in order]
    lines += ["0 %s open" % f for f in order]
    t = 0
    for clip, track, off, length, ns in con.execute(
            """select clip, track, file_offset, length,
                      issued_ns - (select min(issued_ns) from access where stream_id = ?)
               from access where stream_id = ? and errno = 0 order by issued_ns, id""",
            (stream, stream)):
        t = int(ns / 1000)
        lines.append("%d %s read %d %d" % (t, path_of[(clip, track)], off, length))
    lines += ["%d %s close" % (t, f) for f in order]
    return "\n".join(lines) + "\n"
