package dev.colossal.server;

import java.util.List;
import java.util.OptionalLong;

/**
 * XINFO STREAM (with and without FULL [COUNT n]), GROUPS, CONSUMERS and HELP, as Redis 7.0
 * answers them for a stream with no consumer groups. Radix-tree-keys is the number of nodes, as
 * in Redis; radix-tree-nodes is that plus one, which is Redis's count for a stream of at most one
 * node and an estimate past it (there is no radix tree here).
 */
final class StreamInfo {

    /** XINFO STREAM FULL's default COUNT. */
    private static final long FULL_COUNT = 10;

    private static final List<String> HELP = List.of(
            "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "CONSUMERS <key> <groupname>", "    Show consumers of <groupname>.",
            "GROUPS <key>", "    Show the stream consumer groups.",
            "STREAM <key> [FULL [COUNT <count>]", "    Show information about the stream.",
            "HELP", "    Prints this help.");

    private final ServerContext ctx;

    StreamInfo(ServerContext ctx) {
        this.ctx = ctx;
    }

    void xinfo(Client c, byte[][] a, Reply r) {
        byte[] sub = a[1];
        String name;
        int arity;
        if (Args.is(sub, "HELP")) {
            name = "help";
            arity = 2;
        } else if (Args.is(sub, "STREAM")) {
            name = "stream";
            arity = -3;
        } else if (Args.is(sub, "GROUPS")) {
            name = "groups";
            arity = 3;
        } else if (Args.is(sub, "CONSUMERS")) {
            name = "consumers";
            arity = 4;
        } else {
            r.error(Errors.unknownSubcommand(sub, "XINFO"));
            return;
        }
        if (arity > 0 ? a.length != arity : a.length < -arity) {
            r.error(Errors.arity("xinfo|" + name));
            return;
        }
        if (name.equals("help")) {
            r.array(HELP.size());
            HELP.forEach(r::simple);
            return;
        }
        StoredStream.locked(ctx.db(c), a[2], s -> {
            if (s == null) {
                r.error(Errors.NO_SUCH_KEY);
                return null;
            }
            switch (name) {
                case "groups" -> GroupInfo.groups(s, r);
                case "consumers" -> GroupInfo.consumers(s, a, ctx.now(), r);
                default -> stream(s, a, r);
            }
            return null;
        });
    }

    private static void stream(StoredStream s, byte[][] a, Reply r) {
        boolean full = false;
        long count = FULL_COUNT;
        if (a.length > 3) {
            if (!Args.is(a[3], "FULL") || (a.length > 4 && (a.length != 6 || !Args.is(a[4], "COUNT")))) {
                r.error("ERR unknown subcommand or wrong number of arguments for '" + Errors.text(a[1]) + "'. Try XINFO HELP.");
                return;
            }
            full = true;
            if (a.length == 6) {
                OptionalLong v = Args.toLong(a[5]);
                if (v.isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return;
                }
                count = v.getAsLong() < 0 ? FULL_COUNT : v.getAsLong();
            }
        }
        r.map(full ? 9 : 10);
        r.bulk("length");
        r.integer(s.length());
        r.bulk("radix-tree-keys");
        r.integer(s.nodes());
        r.bulk("radix-tree-nodes");
        r.integer(s.nodes() + 1);
        r.bulk("last-generated-id");
        r.bulk(s.lastId().bytes());
        r.bulk("max-deleted-entry-id");
        r.bulk(s.maxDeletedId().bytes());
        r.bulk("entries-added");
        r.integer(s.entriesAdded());
        r.bulk("recorded-first-entry-id");
        r.bulk(s.recordedFirstId().bytes());
        if (full) {
            r.bulk("entries");
            List<StreamNode.Entry> es = s.range(StreamId.MIN, StreamId.MAX, count == 0 ? -1 : count, false);
            r.array(es.size());
            es.forEach(e -> StreamCommands.entry(r, e));
            r.bulk("groups");
            GroupInfo.full(s, count, r);
            return;
        }
        r.bulk("groups");
        r.integer(StreamGroups.of(s).size());
        for (boolean last : new boolean[] {false, true}) {
            r.bulk(last ? "last-entry" : "first-entry");
            StreamNode.Entry e = s.edge(last);
            if (e == null) {
                r.nullBulk();
            } else {
                StreamCommands.entry(r, e);
            }
        }
    }
}
