package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.TreeSet;

/**
 * CLIENT TRACKING, CLIENT CACHING, CLIENT TRACKINGINFO and CLIENT GETREDIR, with Redis 7.0's
 * options, checks and error texts; the tracking itself is {@link Tracking}'s.
 */
final class TrackingCommands {

    private final ServerContext ctx;

    TrackingCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    /** Runs {@code CLIENT <a[1]> ...} if it is one of these four. @return whether it was */
    boolean run(Client c, byte[][] a, Reply r) {
        byte[] sub = a[1];
        if (Args.is(sub, "TRACKING")) {
            if (a.length < 3) {
                r.error(Errors.arity("client|tracking"));
            } else {
                tracking(c, a, r);
            }
        } else if (Args.is(sub, "CACHING")) {
            if (a.length != 3) {
                r.error(Errors.arity("client|caching"));
            } else {
                caching(c, a, r);
            }
        } else if (Args.is(sub, "TRACKINGINFO")) {
            if (a.length != 2) {
                r.error(Errors.arity("client|trackinginfo"));
            } else {
                info(c, r);
            }
        } else if (Args.is(sub, "GETREDIR")) {
            if (a.length != 2) {
                r.error(Errors.arity("client|getredir"));
            } else {
                Tracking.Mode m = c.tracking;
                r.integer(m == null ? -1 : m.redirect());
            }
        } else {
            return false;
        }
        return true;
    }

    /** CLIENT TRACKING ON|OFF [REDIRECT id] [BCAST] [PREFIX p]... [OPTIN] [OPTOUT] [NOLOOP]. */
    private void tracking(Client c, byte[][] a, Reply r) {
        long redirect = 0;
        boolean bcast = false;
        boolean optin = false;
        boolean optout = false;
        boolean noloop = false;
        List<byte[]> prefixes = new ArrayList<>();
        for (int j = 3; j < a.length; j++) {
            boolean more = j + 1 < a.length;
            if (Args.is(a[j], "REDIRECT") && more) {
                j++;
                if (redirect != 0) {
                    r.error("ERR A client can only redirect to a single other client");
                    return;
                }
                OptionalLong id = Args.toLong(a[j]);
                if (id.isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return;
                }
                redirect = id.getAsLong();
                if (!ctx.clients.containsKey(redirect)) {
                    r.error("ERR The client ID you want redirect to does not exist");
                    return;
                }
            } else if (Args.is(a[j], "BCAST")) {
                bcast = true;
            } else if (Args.is(a[j], "OPTIN")) {
                optin = true;
            } else if (Args.is(a[j], "OPTOUT")) {
                optout = true;
            } else if (Args.is(a[j], "NOLOOP")) {
                noloop = true;
            } else if (Args.is(a[j], "PREFIX") && more) {
                prefixes.add(a[++j]);
            } else {
                r.error(Errors.SYNTAX);
                return;
            }
        }
        Tracking.Mode now = c.tracking;
        if (Args.is(a[2], "OFF")) {
            ctx.tracking.disable(c);
            r.ok();
            return;
        }
        if (!Args.is(a[2], "ON")) {
            r.error(Errors.SYNTAX);
            return;
        }
        if (!bcast && !prefixes.isEmpty()) {
            r.error("ERR PREFIX option requires BCAST mode to be enabled");
        } else if (now != null && now.bcast() != bcast) {
            r.error("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then"
                    + " re-enabling it with a different mode.");
        } else if (bcast && (optin || optout)) {
            r.error("ERR OPTIN and OPTOUT are not compatible with BCAST");
        } else if (optin && optout) {
            r.error("ERR You can't specify both OPTIN mode and OPTOUT mode");
        } else if (now != null && (optin && now.optout() || optout && now.optin())) {
            r.error("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then"
                    + " re-enabling it with a different mode.");
        } else {
            List<byte[]> all = new ArrayList<>(now != null && bcast ? now.prefixes() : List.of());
            if (bcast && !addPrefixes(all, prefixes, r)) {
                return;
            }
            ctx.tracking.enable(c, new Tracking.Mode(bcast, optin, optout, noloop, redirect, List.copyOf(all)));
            r.ok();
        }
    }

    /**
     * Adds {@code added} to the client's {@code prefixes} (the empty prefix, every key, if none is
     * given and it has none), refusing any that overlaps another, as Redis does.
     */
    private static boolean addPrefixes(List<byte[]> prefixes, List<byte[]> added, Reply r) {
        for (int i = 0; i < added.size(); i++) {
            byte[] p = added.get(i);
            for (byte[] old : prefixes) {
                if (Tracking.startsWith(p, old) || Tracking.startsWith(old, p)) {
                    r.error("ERR Prefix '" + Errors.text(p) + "' overlaps with an existing prefix '" + Errors.text(old)
                            + "'. Prefixes for a single client must not overlap.");
                    return false;
                }
            }
            for (int j = i + 1; j < added.size(); j++) {
                byte[] q = added.get(j);
                if (Tracking.startsWith(p, q) || Tracking.startsWith(q, p)) {
                    r.error("ERR Prefix '" + Errors.text(p) + "' overlaps with another provided prefix '" + Errors.text(q)
                            + "'. Prefixes for a single client must not overlap.");
                    return false;
                }
            }
        }
        if (added.isEmpty() && prefixes.isEmpty()) {
            prefixes.add(new byte[0]);
        }
        for (byte[] p : added) {
            if (prefixes.stream().noneMatch(x -> java.util.Arrays.equals(x, p))) {
                prefixes.add(p);
            }
        }
        return true;
    }

    private void caching(Client c, byte[][] a, Reply r) {
        Tracking.Mode m = c.tracking;
        if (m == null) {
            r.error("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled");
        } else if (Args.is(a[2], "YES")) {
            if (!m.optin()) {
                r.error("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
                return;
            }
            c.caching = 1;
            r.ok();
        } else if (Args.is(a[2], "NO")) {
            if (!m.optout()) {
                r.error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
                return;
            }
            c.caching = -1;
            r.ok();
        } else {
            r.error(Errors.SYNTAX);
        }
    }

    /** CLIENT TRACKINGINFO: flags (a set), redirect and prefixes (sorted), as Redis lists them. */
    private void info(Client c, Reply r) {
        Tracking.Mode m = c.tracking;
        List<String> flags = new ArrayList<>();
        flags.add(m == null ? "off" : "on");
        if (m != null) {
            if (m.bcast()) {
                flags.add("bcast");
            }
            if (m.optin()) {
                flags.add("optin");
                if (c.caching != 0) {
                    flags.add("caching-yes");
                }
            }
            if (m.optout()) {
                flags.add("optout");
                if (c.caching != 0) {
                    flags.add("caching-no");
                }
            }
            if (m.noloop()) {
                flags.add("noloop");
            }
            if (c.trackingRedirBroken) {
                flags.add("broken_redirect");
            }
        }
        r.map(3);
        r.bulk("flags");
        r.set(flags.size());
        flags.forEach(r::bulk);
        r.bulk("redirect");
        r.integer(m == null ? -1 : m.redirect());
        r.bulk("prefixes");
        TreeSet<String> sorted = new TreeSet<>();
        if (m != null) {
            m.prefixes().forEach(p -> sorted.add(new String(p, java.nio.charset.StandardCharsets.ISO_8859_1)));
        }
        r.array(sorted.size());
        sorted.forEach(p -> r.bulk(p.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1)));
    }
}
