package dev.colossal.server;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A user's rules written back as ACL SETUSER rules, as Redis 7.0 writes them for ACL LIST,
 * GETUSER and the ACL file. Redis does not keep the rules a user was given but the set of commands
 * they left, and describes that set afresh: from {@code +@all} or {@code -@all}, then the
 * categories that fit best, one at a time (most commands in common with the user's set, fewest
 * different), then single commands for what is still different. We do the same, counting over
 * Redis's own table ({@link AclCatalog}), so the text is Redis's; the single commands come in name
 * order where Redis's come in its hash table's (seeded at random each start) order.
 */
final class AclDescription {

    private static final AclCatalog CATALOG = AclCatalog.REDIS;

    private AclDescription() {
    }

    /** @return ACL LIST's line for {@code name}, {@code user} first */
    static String line(String name, AclRules r) {
        return "user " + name + " " + user(r);
    }

    /** @return the user's flags, password hashes, keys, channels and commands, space-separated */
    static String user(AclRules r) {
        StringBuilder sb = new StringBuilder();
        flags(r).forEach(f -> sb.append(f).append(' '));
        r.passwords.forEach(p -> sb.append('#').append(p).append(' '));
        if (r.allKeys) {
            sb.append("~* ");
        } else {
            r.keys.forEach(k -> sb.append(k.describe()).append(' '));
        }
        if (r.allChannels) {
            sb.append("&* ");
        } else {
            sb.append("resetchannels ");
            r.channels.forEach(c -> sb.append('&').append(new String(c, StandardCharsets.ISO_8859_1)).append(' '));
        }
        return sb.append(commands(r)).toString();
    }

    /** GETUSER's flags, in Redis's order. */
    static List<String> flags(AclRules r) {
        List<String> f = new ArrayList<>();
        f.add(r.on ? "on" : "off");
        if (r.nopass) {
            f.add("nopass");
        }
        if (r.sanitize == 2) {
            f.add("skip-sanitize-payload");
        } else if (r.sanitize == 1) {
            f.add("sanitize-payload");
        }
        return f;
    }

    /** GETUSER's keys: the patterns, space-separated. */
    static String keys(AclRules r) {
        if (r.allKeys) {
            return "~*";
        }
        List<String> k = new ArrayList<>();
        r.keys.forEach(p -> k.add(p.describe()));
        return String.join(" ", k);
    }

    /** GETUSER's channels. */
    static String channels(AclRules r) {
        if (r.allChannels) {
            return "&*";
        }
        List<String> k = new ArrayList<>();
        r.channels.forEach(c -> k.add("&" + new String(c, StandardCharsets.ISO_8859_1)));
        return String.join(" ", k);
    }

    /** @return the command rules that rebuild {@code r}'s set of commands */
    static String commands(AclRules r) {
        List<String> out = new ArrayList<>();
        boolean additive = !r.future;
        AclRules fake = new AclRules();
        fake.all(!additive);
        out.add(additive ? "-@all" : "+@all");
        AclRules left = r.copy();
        boolean[] applied = new boolean[AclCatalog.CATEGORIES.size()];
        while (true) {
            int best = -1;
            long minDiff = Long.MAX_VALUE;
            long maxSame = 0;
            for (int j = 0; j < applied.length; j++) {
                if (applied[j]) {
                    continue;
                }
                long on = 0;
                long off = 0;
                for (AclCatalog.Entry e : CATALOG.all()) {
                    if ((e.categories() & 1L << j) != 0) {
                        if (left.allows(e.id())) {
                            on++;
                        } else {
                            off++;
                        }
                    }
                }
                long diff = additive ? off : on;
                long same = additive ? on : off;
                if (same > diff && (diff < minDiff || diff == minDiff && same > maxSame)) {
                    best = j;
                    minDiff = diff;
                    maxSame = same;
                }
            }
            if (best < 0) {
                break;
            }
            fake.category(1L << best, additive);
            left.category(1L << best, !additive);
            out.add((additive ? "+@" : "-@") + AclCatalog.CATEGORIES.get(best));
            applied[best] = true;
        }
        for (AclCatalog.Entry e : CATALOG.commands()) {
            single(r, fake, e, out);
        }
        return String.join(" ", out);
    }

    private static void single(AclRules r, AclRules fake, AclCatalog.Entry e, List<String> out) {
        boolean user = r.allows(e.id());
        if (user != fake.allows(e.id())) {
            out.add((user ? "+" : "-") + e.name());
            fake.change(e, user);
        }
        for (int child : e.children()) {
            single(r, fake, CATALOG.entry(child), out);
        }
        List<String> args = r.firstArgs.get(e.id());
        if (!user && args != null) {
            args.forEach(a -> out.add("+" + e.name() + "|" + a));
        }
    }
}
