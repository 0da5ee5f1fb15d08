package dev.colossal.server;

/**
 * A consumer group's place in its stream's history as Redis 7.0 counts it: the entries-read
 * counter a delivery moves, and the lag XINFO reports. Both rest on the stream's entries-added
 * counter, which stays exact only while no deletion (a tombstone) lies ahead of the group: past
 * one, the counter is estimated or unknown (-1, XINFO's nil).
 */
final class GroupProgress {

    private GroupProgress() {}

    /** @return whether a deleted entry may lie at or after {@code from} */
    static boolean tombstonesFrom(StoredStream s, StreamId from) {
        StreamId maxDeleted = s.maxDeletedId();
        if (s.length() == 0 || maxDeleted.isMin() || s.recordedFirstId().compareTo(maxDeleted) > 0) {
            return false;
        }
        return from.compareTo(maxDeleted) <= 0;
    }

    /** @return the entries-read count at {@code id} as far as it can be told, or -1 */
    static long estimate(StoredStream s, StreamId id) {
        long added = s.entriesAdded();
        if (added == 0) {
            return 0;
        }
        int toLast = id.compareTo(s.lastId());
        if (s.length() == 0 && toLast <= 0) {
            return added;
        }
        if (toLast == 0) {
            return added;
        }
        if (toLast > 0) {
            return ConsumerGroup.ENTRIES_READ_UNKNOWN;
        }
        StreamId maxDeleted = s.maxDeletedId();
        if (maxDeleted.isMin() || maxDeleted.compareTo(s.recordedFirstId()) < 0) {
            int toFirst = id.compareTo(s.recordedFirstId());
            if (toFirst < 0) {
                return added - s.length();
            }
            if (toFirst == 0) {
                return added - s.length() + 1;
            }
        }
        return ConsumerGroup.ENTRIES_READ_UNKNOWN;
    }

    /** Moves {@code g} past entry {@code id}, which it is delivering. */
    static void delivered(StoredStream s, ConsumerGroup g, StreamId id) {
        if (id.compareTo(g.lastId) <= 0) {
            return;
        }
        if (g.entriesRead != ConsumerGroup.ENTRIES_READ_UNKNOWN && !tombstonesFrom(s, id)) {
            g.entriesRead++;
        } else if (s.entriesAdded() != 0) {
            g.entriesRead = estimate(s, id);
        }
        g.lastId = id;
    }

    /** @return the entries of the stream the group has not read, or null if that cannot be told */
    static Long lag(StoredStream s, ConsumerGroup g) {
        if (s.entriesAdded() == 0) {
            return 0L;
        }
        if (g.entriesRead != ConsumerGroup.ENTRIES_READ_UNKNOWN && !tombstonesFrom(s, g.lastId)) {
            return s.entriesAdded() - g.entriesRead;
        }
        long read = estimate(s, g.lastId);
        return read == ConsumerGroup.ENTRIES_READ_UNKNOWN ? null : s.entriesAdded() - read;
    }
}
