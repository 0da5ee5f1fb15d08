package dev.colossal.server;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;

/**
 * XGROUP CREATE, SETID, DESTROY, CREATECONSUMER, DELCONSUMER and HELP, with Redis 7.0's replies,
 * errors, order of checks and keyspace events. Each holds the key's lock around the stream and
 * its {@link StreamGroups}; DESTROY tells {@link KeyWaits}, so that XREADGROUP's waiters on the
 * group get their NOGROUP error.
 */
final class XGroupCommand {

    private static final List<String> HELP = List.of(
            "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "CREATE <key> <groupname> <id|$> [option]",
            "    Create a new consumer group. Options are:",
            "    * MKSTREAM",
            "      Create the empty stream if it does not exist.",
            "    * ENTRIESREAD entries_read",
            "      Set the group's entries_read counter (internal use).",
            "CREATECONSUMER <key> <groupname> <consumer>",
            "    Create a new consumer in the specified group.",
            "DELCONSUMER <key> <groupname> <consumer>",
            "    Remove the specified consumer.",
            "DESTROY <key> <groupname>",
            "    Remove the specified group.",
            "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
            "    Set the current group ID and entries_read counter.",
            "HELP",
            "    Prints this help.");

    private final ServerContext ctx;

    XGroupCommand(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        t.add("xgroup", -2, List.of(), 0, 0, 0, this::xgroup);
    }

    /** @return the subcommand's Redis arity, or 0 if it is none */
    private static int arity(String sub) {
        return switch (sub) {
            case "create", "setid" -> -5;
            case "destroy" -> 4;
            case "createconsumer", "delconsumer" -> 5;
            case "help" -> 2;
            default -> 0;
        };
    }

    private void xgroup(Client c, byte[][] a, Reply r) {
        String sub = Args.lower(a[1]);
        int arity = arity(sub);
        if (arity == 0) {
            r.error(Errors.unknownSubcommand(a[1], "XGROUP"));
            return;
        }
        if (arity > 0 ? a.length != arity : a.length < -arity) {
            r.error(Errors.arity("xgroup|" + sub));
            return;
        }
        if (sub.equals("help")) {
            r.array(HELP.size());
            HELP.forEach(r::simple);
            return;
        }
        boolean mkStream = false;
        long entriesRead = ConsumerGroup.ENTRIES_READ_UNKNOWN;
        if (sub.equals("create") || sub.equals("setid")) {
            for (int i = 5; i < a.length; ) {
                if (sub.equals("create") && Args.is(a[i], "MKSTREAM")) {
                    mkStream = true;
                    i++;
                } else if (a.length - i >= 2 && Args.is(a[i], "ENTRIESREAD")) {
                    OptionalLong v = Args.toLong(a[i + 1]);
                    if (v.isEmpty()) {
                        r.error(Errors.NOT_INTEGER);
                        return;
                    }
                    if (v.getAsLong() < 0 && v.getAsLong() != ConsumerGroup.ENTRIES_READ_UNKNOWN) {
                        r.error("ERR value for ENTRIESREAD must be positive or -1");
                        return;
                    }
                    entriesRead = v.getAsLong();
                    i += 2;
                } else {
                    r.error(syntax(a[1]));
                    return;
                }
            }
        }
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[2]);
        l.lock();
        String event;
        try {
            event = run(c, sub, a, r, store, mkStream, entriesRead);
        } finally {
            l.unlock();
        }
        if (event != null) {
            ctx.events.fire(KeyspaceEvents.STREAM, event, c.db, a[2]);
            if (event.equals("xgroup-destroy")) {
                ctx.waits.ready(c.db, a[2]);
            }
        }
    }

    private static String syntax(byte[] sub) {
        return "ERR unknown subcommand or wrong number of arguments for '" + Errors.text(sub) + "'. Try XGROUP HELP.";
    }

    /** Runs the subcommand under the key's lock. @return the keyspace event to fire, or null */
    private String run(Client c, String sub, byte[][] a, Reply r, KeyValueStore store, boolean mkStream,
                       long entriesRead) {
        StoredStream s = StoredStream.read(store, a[2]);
        if (!mkStream && s == null) {
            r.error("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use"
                    + " the MKSTREAM option to create an empty stream automatically.");
            return null;
        }
        StreamGroups groups = s == null ? null : StreamGroups.of(s);
        ConsumerGroup g = groups == null ? null : groups.get(a[3]);
        if (g == null && !mkStream && !sub.equals("create") && !sub.equals("destroy")) {
            r.error("NOGROUP No such consumer group '" + Errors.text(a[3]) + "' for key name '" + Errors.text(a[2]) + "'");
            return null;
        }
        switch (sub) {
            case "create" -> {
                if (a.length > 8) {
                    r.error(syntax(a[1]));
                    return null;
                }
                StreamId id = groupId(s, a[4], true, r);
                if (id == null) {
                    return null;
                }
                if (s == null) {
                    s = StoredStream.create(store, a[2]);
                    groups = StreamGroups.of(s);
                } else if (groups.get(a[3]) != null) {
                    r.error("BUSYGROUP Consumer Group name already exists");
                    return null;
                }
                groups.save(new ConsumerGroup(a[3], id, entriesRead));
                r.ok();
                return "xgroup-create";
            }
            case "setid" -> {
                if (a.length != 5 && a.length != 7) {
                    r.error(syntax(a[1]));
                    return null;
                }
                StreamId id = groupId(s, a[4], false, r);
                if (id == null) {
                    return null;
                }
                g.lastId = id;
                g.entriesRead = entriesRead;
                groups.save(g);
                r.ok();
                return "xgroup-setid";
            }
            case "destroy" -> {
                if (g == null) {
                    r.integer(0);
                    return null;
                }
                groups.destroy(a[3]);
                r.integer(1);
                return "xgroup-destroy";
            }
            case "createconsumer" -> {
                boolean[] created = {false};
                g.consumer(a[4], ctx.now(), created);
                if (created[0]) {
                    groups.save(g);
                }
                r.integer(created[0] ? 1 : 0);
                return created[0] ? "xgroup-createconsumer" : null;
            }
            default -> {
                ConsumerGroup.Consumer gone = g.consumers.get(a[4]);
                if (gone == null) {
                    r.integer(0);
                    return null;
                }
                long pending = g.remove(gone);
                groups.save(g);
                r.integer(pending);
                return "xgroup-delconsumer";
            }
        }
    }

    /** @return CREATE's or SETID's ID ({@code $}: the stream's last ID), or null once the error is answered */
    private static StreamId groupId(StoredStream s, byte[] arg, boolean strict, Reply r) {
        if (arg.length == 1 && arg[0] == '$') {
            return s == null ? StreamId.MIN : s.lastId();
        }
        StreamId id = StreamId.parse(arg, 0, strict);
        if (id == null) {
            r.error(StreamId.INVALID);
        }
        return id;
    }
}
