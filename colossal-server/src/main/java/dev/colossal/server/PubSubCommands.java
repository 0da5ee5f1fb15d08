package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;

/**
 * PUBLISH, SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBSUB and the shard forms SPUBLISH,
 * SSUBSCRIBE, SUNSUBSCRIBE, with redis-server 7.0's replies in non-cluster mode. The registry and the
 * fan-out are {@link PubSub}'s; this class answers the commands.
 *
 * <p>A confirmation or message is a RESP3 push after HELLO 3, a plain array in RESP2, where a
 * subscribed connection may only run the commands {@link #allowedWhileSubscribed} names
 * ({@link CommandTable} refuses the rest).
 */
final class PubSubCommands {

    private static final List<String> HELP = List.of(
            "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "CHANNELS [<pattern>]",
            "    Return the currently active channels matching a <pattern> (default: '*').",
            "NUMPAT",
            "    Return number of subscriptions to patterns.",
            "NUMSUB [<channel> ...]",
            "    Return the number of subscribers for the specified channels, excluding",
            "    pattern subscriptions(default: no channels).",
            "SHARDCHANNELS [<pattern>]",
            "    Return the currently active shard level channels matching a <pattern> (default: '*').",
            "SHARDNUMSUB [<shardchannel> ...]",
            "    Return the number of subscribers for the specified shard level channel(s)",
            "HELP",
            "    Prints this help.");

    private final ServerContext ctx;

    PubSubCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        List<String> publish = List.of("pubsub", "loading", "stale", "fast");
        List<String> subscribe = List.of("pubsub", "noscript", "loading", "stale");
        t.add("publish", 3, publish, 0, 0, 0, (c, a, r) -> publish(c, a, r, PubSub.Kind.CHANNEL));
        t.add("spublish", 3, publish, 1, 1, 1, (c, a, r) -> publish(c, a, r, PubSub.Kind.SHARD));
        t.add("subscribe", -2, subscribe, 0, 0, 0, (c, a, r) -> subscribe(c, a, r, PubSub.Kind.CHANNEL));
        t.add("psubscribe", -2, subscribe, 0, 0, 0, (c, a, r) -> subscribe(c, a, r, PubSub.Kind.PATTERN));
        t.add("ssubscribe", -2, subscribe, 1, -1, 1, (c, a, r) -> subscribe(c, a, r, PubSub.Kind.SHARD));
        t.add("unsubscribe", -1, subscribe, 0, 0, 0, (c, a, r) -> unsubscribe(c, a, r, PubSub.Kind.CHANNEL));
        t.add("punsubscribe", -1, subscribe, 0, 0, 0, (c, a, r) -> unsubscribe(c, a, r, PubSub.Kind.PATTERN));
        t.add("sunsubscribe", -1, subscribe, 1, -1, 1, (c, a, r) -> unsubscribe(c, a, r, PubSub.Kind.SHARD));
        t.add("pubsub", -2, List.of(), 0, 0, 0, this::pubsub);
    }

    /**
     * Whether a RESP2 connection in subscribed mode may run command {@code name}: Redis 7.0 allows
     * these, and refuses the rest with {@link #notAllowed}.
     */
    static boolean allowedWhileSubscribed(String name) {
        return switch (name) {
            case "subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe", "ping",
                    "quit", "reset" -> true;
            default -> false;
        };
    }

    /** Redis's error for a command a RESP2 subscriber may not run; {@code name} as INFO commandstats names it. */
    static String notAllowed(String name) {
        return "ERR Can't execute '" + name + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET"
                + " are allowed in this context";
    }

    /**
     * The subscriber of client {@code c}, made at its first subscription, or when MONITOR or
     * client tracking first sends it something through its mailbox: from any thread (a tracking
     * client's REDIRECT target is another loop's).
     */
    static Subscriber subscriber(Client c) {
        Subscriber s = c.subscriber;
        if (s != null) {
            return s;
        }
        synchronized (c) {
            if (c.subscriber == null) {
                Runnable killer = c.killer;
                c.subscriber = new Subscriber(new Mailbox(c.mailer, () -> {
                    c.subscriber.limit.logClose(c, c.subscriber.limit.hard());
                    killer.run();
                }));
            }
            return c.subscriber;
        }
    }

    private void publish(Client c, byte[][] a, Reply r, PubSub.Kind kind) {
        int receivers = ctx.pubsub.publish(kind, a[1], a[2]);
        deliverWaiting(c, r); // its own messages come before the count, as redis-server writes them
        r.integer(receivers);
    }

    private void subscribe(Client c, byte[][] a, Reply r, PubSub.Kind kind) {
        if (kind == PubSub.Kind.SHARD && c.inExec) {
            // Redis runs EXEC's commands as a client that may not block: SUBSCRIBE is let through
            // for compatibility, SSUBSCRIBE is not
            r.error("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
            return;
        }
        Subscriber s = subscriber(c);
        for (int i = 1; i < a.length; i++) {
            ctx.pubsub.subscribe(s, kind, new PubSub.Name(a[i]));
            confirm(r, kind.subscribe, a[i], s.count(kind));
        }
        c.pubsub = true;
    }

    private void unsubscribe(Client c, byte[][] a, Reply r, PubSub.Kind kind) {
        Subscriber s = c.subscriber;
        List<PubSub.Name> names = new ArrayList<>();
        if (a.length > 1) {
            for (int i = 1; i < a.length; i++) {
                names.add(new PubSub.Name(a[i]));
            }
        } else if (s != null) {
            names.addAll(s.names(kind));
        }
        if (names.isEmpty()) {
            confirm(r, kind.unsubscribe, null, s == null ? 0 : s.count(kind));
        }
        for (PubSub.Name n : names) {
            if (s != null && ctx.pubsub.unsubscribe(s, kind, n)) {
                // Messages published while it listened go before the confirmation: once the
                // registration is gone (under the registry's lock), no publisher can add more.
                deliverWaiting(c, r);
            }
            confirm(r, kind.unsubscribe, n.bytes(), s == null ? 0 : s.count(kind));
        }
        c.pubsub = s != null && s.subscribed();
    }

    /**
     * Writes the messages waiting for subscriber {@code c} to {@code r}, on its loop, but not inside
     * EXEC's reply, where a message would sit among the array's elements: they wait for the next
     * command or the loop.
     */
    static void deliverWaiting(Client c, Reply r) {
        Subscriber s = c.subscriber;
        if (s != null && !c.inExec) {
            s.mailbox.drainTo(r);
        }
    }

    /** RESET and the connection's close: every subscription of {@code c} gone, so no more messages come. */
    static void leaveAll(ServerContext ctx, Client c) {
        if (c.subscriber != null) {
            ctx.pubsub.unsubscribeAll(c.subscriber);
            c.pubsub = false;
        }
    }

    private static void confirm(Reply r, byte[] kind, byte[] name, int count) {
        r.push(3);
        r.bulk(kind);
        if (name == null) {
            r.nullBulk();
        } else {
            r.bulk(name);
        }
        r.integer(count);
    }

    private void pubsub(Client c, byte[][] a, Reply r) {
        byte[] sub = a[1];
        boolean channels = Args.is(sub, "CHANNELS");
        if (channels || Args.is(sub, "SHARDCHANNELS")) {
            if (a.length > 3) {
                r.error("ERR unknown subcommand or wrong number of arguments for '" + Errors.text(sub)
                        + "'. Try PUBSUB HELP.");
                return;
            }
            List<byte[]> names = ctx.pubsub.channels(channels ? PubSub.Kind.CHANNEL : PubSub.Kind.SHARD,
                    a.length == 3 ? a[2] : null);
            r.array(names.size());
            names.forEach(r::bulk);
        } else if (Args.is(sub, "NUMSUB") || Args.is(sub, "SHARDNUMSUB")) {
            PubSub.Kind kind = Args.is(sub, "NUMSUB") ? PubSub.Kind.CHANNEL : PubSub.Kind.SHARD;
            r.array(2 * (a.length - 2));
            for (int i = 2; i < a.length; i++) {
                r.bulk(a[i]);
                r.integer(ctx.pubsub.subscribers(kind, a[i]));
            }
        } else if (Args.is(sub, "NUMPAT") && a.length == 2) {
            r.integer(ctx.pubsub.patternCount());
        } else if (Args.is(sub, "HELP") && a.length == 2) {
            r.array(HELP.size());
            HELP.forEach(r::simple);
        } else if (Args.is(sub, "NUMPAT") || Args.is(sub, "HELP")) {
            r.error(Errors.arity("pubsub|" + Args.lower(sub)));
        } else {
            r.error(Errors.unknownSubcommand(sub, "PUBSUB"));
        }
    }
}
