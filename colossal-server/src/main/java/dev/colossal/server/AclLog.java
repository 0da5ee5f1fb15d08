package dev.colossal.server;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * ACL LOG: the last 128 refusals (a command, key or channel a user may not use, a failed AUTH),
 * newest first. A refusal like one logged less than a minute ago (same reason, context, object and
 * user) counts on that entry, as Redis groups them, so a client retrying in a loop fills one entry.
 * Shared by every loop: its methods are synchronized (refusals are rare, and never on the
 * allowed path).
 */
final class AclLog {

    /** Redis's acllog-max-len default. */
    private static final int MAX = 128;
    private static final long GROUP_MILLIS = 60_000;

    /** One entry, changed in place while it groups refusals. */
    static final class Entry {
        final long id;
        final String reason;
        final String context;
        final String object;
        final String user;
        final long createdMillis;
        volatile long count = 1;
        volatile long updatedMillis;
        volatile String clientInfo;

        Entry(long id, String reason, String context, String object, String user, long now, String clientInfo) {
            this.id = id;
            this.reason = reason;
            this.context = context;
            this.object = object;
            this.user = user;
            this.createdMillis = now;
            this.updatedMillis = now;
            this.clientInfo = clientInfo;
        }
    }

    private final Deque<Entry> entries = new ArrayDeque<>();
    private long nextId;

    synchronized void add(String reason, String context, String object, String user, long now, String clientInfo) {
        for (var it = entries.iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (e.reason.equals(reason) && e.context.equals(context) && e.object.equals(object) && e.user.equals(user)
                    && now - e.updatedMillis < GROUP_MILLIS) {
                it.remove();
                e.count = e.count + 1;
                e.updatedMillis = now;
                e.clientInfo = clientInfo;
                entries.addFirst(e);
                return;
            }
        }
        entries.addFirst(new Entry(nextId++, reason, context, object, user, now, clientInfo));
        while (entries.size() > MAX) {
            entries.removeLast();
        }
    }

    synchronized java.util.List<Entry> newest(long count) {
        return entries.stream().limit(count).toList();
    }

    synchronized void reset() {
        entries.clear();
    }
}
