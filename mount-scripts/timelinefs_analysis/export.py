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


def image_file(pattern, image):
    """An image sequence's file: its pattern ("A001C003.%07d.dpx") with
    the image's number, as the mount names it."""
    try:
        return pattern % image
    except (TypeError, ValueError) as e:
        raise ExportError("cannot name image %d of %s: %s" % (image, pattern, e))


def fio_iolog(con, path, stream, served=False):
    """The iolog's lines: "fio version 3 iolog", an add and an open per
    file, a read per access in issue order (microseconds since the
    stream's first access: a sequence's first image's open), a close per
    file.  The reads are the media's data reads and an image's header
    reads (served: the data reads only, the bytes the stream served),
    each image of a sequence its own file; not the opens and closes a
    sequence's rows record."""
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
    # schema 10 on: op (0 read, 2 header) and an image's number
    has_op = dbm.has_column(con, "access", "op")
    cols = "op, image" if has_op else "0, null"
    # the files in the order of their first read (a dict keeps it: a
    # sequence's stream has an image file a frame, thousands)
    reads, files = [], {}
    for clip, track, off, length, ns, op, image in con.execute(
            """select clip, track, file_offset, length,
                      issued_ns - (select min(issued_ns) from access where stream_id = ?),
                      %s
               from access where stream_id = ? and errno = 0 %s
               order by issued_ns, id""" % (cols, ("and op = 0" if served else "and op in (0, 2)")
                                       if has_op else ""),
            (stream, stream)):
        f = path_of[(clip, track)]
        if image is not None:
            f = image_file(f, image)
        files.setdefault(f, None)
        reads.append("%d %s read %d %d" % (int(ns / 1000), f, off, length))
    # then any not read (a pattern is not a file)
    for f in order:
        if "%" not in f:
            files.setdefault(f, None)
    t = reads[-1].split(" ", 1)[0] if reads else "0"
    lines = ["fio version 3 iolog"]
    lines += ["0 %s add" % f for f in files]
    lines += ["0 %s open" % f for f in files]
    lines += reads
    lines += ["%s %s close" % (t, f) for f in files]
    return "\n".join(lines) + "\n"
