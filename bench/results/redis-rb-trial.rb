# A side-by-side trial of redis-rb 4.8.0 (Debian's ruby-redis) against one server on ARGV[0]: each line
# is one client call and what it returned (or the error class and text it raised), in the order run,
# so two servers' outputs compare with diff. Driven by bench/results/redis-rb-trial.sh.
require "redis"

port = Integer(ARGV.fetch(0))
r = Redis.new(host: "127.0.0.1", port: port, db: 9)
other = Redis.new(host: "127.0.0.1", port: port, db: 9)
r.flushdb

# Prints one call's outcome; a raised Redis error is an outcome too, as the client's users see it.
# A stream ID the server made from its clock is written as <ms>-<seq>, so runs compare.
def check(label)
  value = yield
  puts "#{label}: #{value.inspect.gsub(/\b\d{13}-\d+\b/, "<ms>-<seq>")}"
rescue StandardError => e
  puts "#{label}: raised #{e.class}: #{e.message}"
end

# strings
check("set") { r.set("s", "hello") }
check("set nx") { r.set("s", "x", nx: true) }
check("set xx ex") { r.set("s", "v", xx: true, ex: 100) }
check("set get") { r.set("s", "w", get: true) }
check("set keepttl") { r.set("s", "w2", keepttl: true) }
check("ttl kept") { r.ttl("s") }
check("setnx") { r.setnx("s", "z") }
check("get") { r.get("s") }
check("getset") { r.getset("s", "hello world") }
check("getrange") { r.getrange("s", 0, 4) }
check("setrange") { r.setrange("s", 6, "Redis") }
check("strlen") { r.strlen("s") }
check("append") { r.append("s", "!") }
check("getdel") { r.getdel("s") }
check("getex") { r.set("g", "1"); r.getex("g", ex: 50) }
check("getex persist") { r.getex("g", persist: true); r.ttl("g") }
check("mset") { r.mset("a", 1, "b", 2) }
check("mapped_mset") { r.mapped_mset("c" => 3, "d" => 4) }
check("msetnx") { r.msetnx("a", 9, "e", 5) }
check("mapped_msetnx") { r.mapped_msetnx("f" => 6) }
check("mget") { r.mget("a", "b", "zz", "f") }
check("mapped_mget") { r.mapped_mget("c", "d") }
check("incr") { r.incr("n") }
check("incrby") { r.incrby("n", 41) }
check("decr") { r.decr("n") }
check("decrby") { r.decrby("n", 10) }
check("incrbyfloat") { r.incrbyfloat("fl", 1.5) }
check("incrbyfloat exp") { r.incrbyfloat("fl", 5.0e3) }
check("incr not int") { r.set("t", "abc"); r.incr("t") }
check("incrbyfloat not float") { r.incrbyfloat("t", 1) }
check("setex") { r.setex("x", 100, "v") }
check("psetex") { r.psetex("y", 100_000, "v") }
check("setex bad") { r.setex("x", -1, "v") }
check("set ex 0") { r.set("x", "v", ex: 0) }
check("lcs") { r.set("l1", "ohmytext"); r.set("l2", "mynewtext"); r.call("lcs", "l1", "l2") }
# bitmaps
check("setbit") { r.setbit("bits", 7, 1) }
check("getbit") { r.getbit("bits", 7) }
check("bitcount") { r.set("bc", "foobar"); r.bitcount("bc") }
check("bitcount range") { r.bitcount("bc", 1, 1) }
check("bitpos") { r.bitpos("bc", 1) }
check("bitpos range") { r.bitpos("bc", 0, 1, 2) }
check("bitpos start only") { r.bitpos("bc", 1, 2) }
check("bitop") { r.set("b1", "abc"); r.set("b2", "abd"); r.bitop("xor", "b3", "b1", "b2") }
check("bitfield") { r.bitfield("bf", "INCRBY", "i5", 100, 1, "GET", "u4", 0) }
check("bitfield overflow") { r.bitfield("bf", "OVERFLOW", "SAT", "INCRBY", "i5", 100, 100) }
# keys
check("exists") { r.exists("a", "b", "nope") }
check("exists?") { r.exists?("a") }
check("del") { r.del("a", "nope") }
check("unlink") { r.unlink("b") }
check("type") { r.type("c") }
check("keys") { r.keys("[cd]").sort }
check("randomkey type") { r.randomkey.class }
check("rename") { r.rename("c", "c2") }
check("renamenx") { r.renamenx("c2", "d") }
check("rename missing") { r.rename("nope", "x2") }
check("expire") { r.expire("d", 100) }
check("expire nx") { r.expire("d", 50, nx: true) }
check("expire gt") { r.expire("d", 200, gt: true) }
check("pexpire") { r.pexpire("d", 300_000) }
check("expireat") { r.expireat("d", 4_000_000_000) }
check("expiretime") { r.call("expiretime", "d") }
check("pexpireat") { r.pexpireat("d", 4_000_000_000_000) }
check("pttl") { r.pttl("d") > 0 }
check("persist") { r.persist("d") }
check("ttl none") { r.ttl("d") }
check("ttl missing") { r.ttl("nope") }
check("copy") { r.copy("d", "d3") }
check("copy replace") { r.copy("d", "d3", replace: true) }
check("copy db") { r.copy("d", "d3", db: 10, replace: true) }
check("move") { r.move("d3", 11) }
check("object encoding") { r.object("encoding", "d") }
check("object refcount") { r.object("refcount", "d") }
check("dump restore") { d = r.dump("d"); r.restore("d4", 0, d) }
check("restore busy") { r.restore("d4", 0, r.dump("d")) }
check("restore replace") { r.restore("d4", 0, r.dump("d"), replace: true) }
check("restore bad") { r.restore("d5", 0, "garbage") }
check("touch") { r.call("touch", "d", "d4", "nope") }
check("scan") { c, ks = r.scan(0, match: "d*", count: 1000); [c, ks.sort] }
check("scan_each") { r.scan_each(match: "d*").to_a.sort }
check("scan type") { r.scan(0, type: "string", count: 1000)[1].size }
check("sort") { r.rpush("srt", [3, 1, 2]); r.sort("srt") }
check("sort desc limit") { r.sort("srt", order: "desc", limit: [0, 2]) }
check("sort alpha store") { r.sort("srt", order: "alpha", store: "srt2"); r.lrange("srt2", 0, -1) }
check("sort by get") { r.mset("w_1", 3, "w_2", 2, "w_3", 1, "o_1", "x", "o_2", "y", "o_3", "z"); r.sort("srt", by: "w_*", get: ["#", "o_*"]) }
check("wrongtype") { r.lpush("s2", "x"); r.set("s3", "y"); r.lpush("s3", "x") }
# lists
check("lpush") { r.lpush("L", %w[a b c]) }
check("rpush") { r.rpush("L", "d") }
check("lpushx") { r.lpushx("nol", "a") }
check("rpushx") { r.rpushx("L", "e") }
check("llen") { r.llen("L") }
check("lrange") { r.lrange("L", 0, -1) }
check("lindex") { r.lindex("L", 1) }
check("lset") { r.lset("L", 1, "B") }
check("lset out") { r.lset("L", 99, "B") }
check("linsert") { r.linsert("L", :before, "B", "A") }
check("linsert bad") { r.linsert("L", :middle, "B", "A") }
check("lrem") { r.lrem("L", 0, "A") }
check("ltrim") { r.ltrim("L", 0, 3) }
check("lpop") { r.lpop("L") }
check("lpop count") { r.lpop("L", 2) }
check("rpop count") { r.rpush("L", %w[1 2 3]); r.rpop("L", 2) }
check("lpop missing") { r.lpop("nol") }
check("lpop count missing") { r.lpop("nol", 2) }
check("lpos") { r.rpush("P", %w[a b c b]); r.call("lpos", "P", "b", "RANK", 2) }
check("lmove") { r.lmove("P", "Q", "LEFT", "RIGHT") }
check("rpoplpush") { r.rpoplpush("P", "Q") }
check("blpop") { r.blpop("Q", timeout: 1) }
check("brpop") { r.brpop(["none", "Q"], timeout: 1) }
check("blpop timeout") { r.blpop("none", timeout: 1) }
check("blpop float timeout") { r.blpop("none", timeout: 0.1) }
check("brpoplpush") { r.rpush("R", "x"); r.brpoplpush("R", "Q", timeout: 1) }
check("blmove") { r.blmove("Q", "R", "LEFT", "LEFT", timeout: 1) }
check("blpop woken") do
  t = Thread.new { sleep 0.3; other.rpush("W", "late") }
  v = r.blpop("W", timeout: 5); t.join; v
end
check("lmpop") { r.call("lmpop", 2, "none", "R", "LEFT", "COUNT", 5) }
# sets
check("sadd") { r.sadd("S", %w[a b c]) }
check("sadd?") { r.sadd?("S", "a") }
check("srem") { r.srem("S", "c") }
check("srem?") { r.srem?("S", "zz") }
check("smembers") { r.smembers("S").sort }
check("scard") { r.scard("S") }
check("sismember") { r.sismember("S", "a") }
check("smismember") { r.smismember("S", "a", "q") }
check("spop") { r.sadd("S2", "only"); r.spop("S2") }
check("spop count") { r.sadd("S2", %w[x y]); r.spop("S2", 5).sort }
check("srandmember") { r.srandmember("S").class }
check("srandmember count") { r.srandmember("S", -5).size }
check("smove") { r.smove("S", "S3", "a") }
check("sinter") { r.sadd("S4", %w[b q]); r.sinter("S", "S4") }
check("sintercard") { r.call("sintercard", 2, "S", "S4") }
check("sunion") { r.sunion("S", "S4").sort }
check("sdiff") { r.sdiff("S4", "S") }
check("sinterstore") { r.sinterstore("S5", "S", "S4") }
check("sunionstore") { r.sunionstore("S5", "S", "S4") }
check("sdiffstore") { r.sdiffstore("S5", "S4", "S") }
check("sscan") { c, m = r.sscan("S4", 0, count: 100); [c, m.sort] }
check("sscan_each") { r.sscan_each("S4", match: "q*").to_a }
# sorted sets
check("zadd") { r.zadd("Z", [[1, "a"], [2, "b"], [3, "c"]]) }
check("zadd single") { r.zadd("Z", 4, "d") }
check("zadd xx ch") { r.zadd("Z", 5, "d", xx: true, ch: true) }
check("zadd incr") { r.zadd("Z", 1, "a", incr: true) }
check("zadd gt") { r.zadd("Z", 0, "a", gt: true, ch: true) }
check("zadd nx xx") { r.zadd("Z", 1, "a", nx: true, xx: true) }
check("zadd inf") { r.zadd("Z", "+inf", "inf") }
check("zscore inf") { r.zscore("Z", "inf") }
check("zincrby") { r.zincrby("Z", 0.5, "b") }
check("zcard") { r.zcard("Z") }
check("zscore") { r.zscore("Z", "b") }
check("zmscore") { r.zmscore("Z", "a", "nope") }
check("zrange") { r.zrange("Z", 0, -1, with_scores: true) }
check("zrange byscore") { r.zrange("Z", "(1", "+inf", byscore: true, limit: [0, 2]) }
check("zrange bylex rev") { r.zadd("ZL", [[0, "a"], [0, "b"], [0, "c"]]); r.zrange("ZL", "[c", "-", by_lex: true, rev: true) }
check("zrangestore") { r.zrangestore("Z2", "Z", 0, 1) }
check("zrevrange") { r.zrevrange("Z", 0, 1, withscores: true) }
check("zrank") { r.zrank("Z", "c") }
check("zrevrank") { r.zrevrank("Z", "c") }
check("zrangebyscore") { r.zrangebyscore("Z", 1, 3, with_scores: true) }
check("zrevrangebyscore") { r.zrevrangebyscore("Z", "+inf", "-inf", limit: [1, 2]) }
check("zrangebylex") { r.zrangebylex("ZL", "-", "(c") }
check("zrevrangebylex") { r.zrevrangebylex("ZL", "+", "[b") }
check("zcount") { r.zcount("Z", "-inf", 3) }
check("zlexcount") { r.zlexcount("ZL", "-", "+") }
check("zrem") { r.zrem("Z", "inf") }
check("zrem many") { r.zrem("Z", ["nope", "nope2"]) }
check("zremrangebyrank") { r.zadd("Z3", [[1, "x"], [2, "y"], [3, "z"]]); r.zremrangebyrank("Z3", 0, 0) }
check("zremrangebyscore") { r.zremrangebyscore("Z3", 2, 2) }
check("zremrangebylex") { r.zremrangebylex("ZL", "[a", "[a") }
check("zpopmin") { r.zpopmin("Z") }
check("zpopmax count") { r.zpopmax("Z", 2) }
check("zpopmin empty") { r.zpopmin("nope") }
check("bzpopmin") { r.bzpopmin("Z", timeout: 1) }
check("bzpopmax timeout") { r.bzpopmax("nope", timeout: 1) }
check("zrandmember") { r.zadd("Z4", [[1, "p"], [2, "q"]]); r.zrandmember("Z4", 2, with_scores: true).size }
check("zinter") { r.zadd("Z5", [[10, "p"], [20, "r"]]); r.zinter("Z4", "Z5", with_scores: true) }
check("zinter weights max") { r.zinter("Z4", "Z5", weights: [2, 1], aggregate: "max", with_scores: true) }
check("zunion") { r.zunion("Z4", "Z5", with_scores: true) }
check("zdiff") { r.zdiff("Z4", "Z5", with_scores: true) }
check("zinterstore") { r.zinterstore("Z6", ["Z4", "Z5"], aggregate: "min") }
check("zunionstore") { r.zunionstore("Z6", ["Z4", "Z5"], weights: [1, 0.5]) }
check("zdiffstore") { r.zdiffstore("Z6", ["Z5", "Z4"]) }
check("zscan") { r.zscan("Z5", 0) }
check("zscan_each") { r.zscan_each("Z5").to_a }
check("zmpop") { r.call("zmpop", 2, "nope", "Z5", "MIN", "COUNT", 1) }
# sorted sets at the edges redis-rb's lint tests use (Ruby's Infinity is sent as "Infinity")
check("zadd incr -inf") { r.zadd("zi", "-inf", "s1", incr: true) }
check("zadd incr +inf") { r.zadd("zi", "+inf", "s2", incr: true) }
check("zadd incr pairs") { r.zadd("zi", [1, "s1", 2, "s2"], incr: true) }
check("zadd one arg") { r.zadd("zi", ["bar"]) }
check("zadd odd args") { r.zadd("zi", ["bar", "qux", "zap"]) }
check("zadd flat pairs") { r.zadd("zf", [1, "s1", 2, "s2"]) }
check("zadd xx pairs") { r.zadd("zf", [2, "s1", 3, "s2", 4, "s3"], xx: true) }
check("zadd nx pairs") { r.zadd("zf", [9, "s1", 4, "s3"], nx: true) }
check("zadd ch pairs") { r.zadd("zf", [1, "s1", 3, "s2", 5, "s4"], ch: true) }
check("zincrby -inf") { r.zincrby("zb", "-inf", "s1") }
check("zincrby +inf") { r.zincrby("zb", "+inf", "s2") }
check("zincrby inf - inf") { r.zincrby("zb", "-inf", "s2") }
check("zrange infinities") { r.zrange("zb", 0, 1, withscores: true) }
check("zrangebyscore Infinity") { r.zrangebyscore("zb", -Float::INFINITY, Float::INFINITY, limit: [0, 1], with_scores: true) }
check("zrevrangebyscore Infinity") { r.zrevrangebyscore("zb", Float::INFINITY, -Float::INFINITY, limit: [1, 1], with_scores: true) }
check("zcount Infinity") { r.zcount("zb", -Float::INFINITY, Float::INFINITY) }
check("zadd Infinity") { r.zadd("zb", Float::INFINITY, "s3") }
check("zscore after Infinity") { r.zscore("zb", "s3") }
check("zadd -Infinity") { r.zadd("zb", -Float::INFINITY, "s4") }
check("zincrby Infinity") { r.zincrby("zb", Float::INFINITY, "s5") }
check("zadd NaN") { r.zadd("zb", Float::NAN, "s6") }
check("zrangebyscore nan") { r.zrangebyscore("zb", "nan", "+inf") }
check("zrangebyscore (Infinity") { r.zrangebyscore("zb", "(-Infinity", "(Infinity") }
check("zrangebyscore inity") { r.zrangebyscore("zb", "-infinity", "+INF") }
check("zadd 1e400") { r.zadd("zb", "1e400", "s7") }
check("zadd hex") { r.zadd("zb", "0x10", "s8") }
check("zadd spaces") { r.zadd("zb", " 1", "s9") }
check("zlexcount xff") { r.zadd("zx", [[0, "aaren"], [0, "abagael"], [0, "abby"], [0, "abbygail"]]); [r.zlexcount("zx", "[a", "[a\xff"), r.zlexcount("zx", "(aaren", "[ab\xff"), r.zlexcount("zx", "[aba", "(abbygail")] }
check("zrangebylex xff") { [r.zrangebylex("zx", "[a", "[a\xff", limit: [0, 2]), r.zrangebylex("zx", "(abb", "(abb\xff")] }
check("zrevrangebylex xff") { [r.zrevrangebylex("zx", "[a\xff", "[a", limit: [0, 2]), r.zrevrangebylex("zx", "(abby\xff", "(abby")] }
check("zrangebylex bad") { r.zrangebylex("zx", "a", "b") }
check("zremrangebylex") { r.zremrangebylex("zx", "(aaren", "[abby") }
check("zunionstore aggregate sym") { r.zadd("zu1", [[1, "s1"], [2, "s2"]]); r.zadd("zu2", [[4, "s2"], [3, "s3"]]); [r.zunionstore("zu3", %w[zu1 zu2], aggregate: :min), r.zrange("zu3", 0, -1, with_scores: true)] }
check("zinterstore weights") { [r.zinterstore("zu3", %w[zu1 zu2], weights: [10, 1]), r.zrange("zu3", 0, -1, with_scores: true)] }
check("zinter weights mismatch") { r.zinter("zu1", "zu2", weights: [1]) }
check("zunion aggregate bad") { r.zunion("zu1", "zu2", aggregate: "avg") }
check("zrangestore byscore limit") { r.zrangestore("zu4", "zu2", "-inf", "+inf", byscore: true, limit: [1, 1]) }
check("zrange rev byscore") { r.zrange("zu2", "+inf", "-inf", byscore: true, rev: true, with_scores: true) }
check("zrange limit without by") { r.zrange("zu2", 0, -1, limit: [0, 1]) }
check("zrandmember single") { r.zrandmember("zu1").class }
check("zrandmember missing") { [r.zrandmember("nozset"), r.zrandmember("nozset", 2)] }
check("zmscore missing key") { r.zmscore("nozset", "a") }
check("bzpopmin many") { r.bzpopmin("nozset", "zu2", timeout: 1) }
check("bzpopmax woken") do
  t = Thread.new { sleep 0.3; other.zadd("zw", 7, "m") }
  v = r.bzpopmax("zw", timeout: 5); t.join; v
end
# hashes
check("hset") { r.hset("H", "f1", "v1", "f2", "v2") }
check("hset hash") { r.hset("H", { "f3" => "v3" }) }
check("hsetnx") { r.hsetnx("H", "f1", "x") }
check("hget") { r.hget("H", "f1") }
check("hmset") { r.hmset("H", "f4", "v4") }
check("mapped_hmset") { r.mapped_hmset("H", "f5" => "v5") }
check("hmget") { r.hmget("H", "f1", "nope") }
check("mapped_hmget") { r.mapped_hmget("H", "f2", "nope") }
check("hgetall") { r.hgetall("H").sort }
check("hkeys") { r.hkeys("H").sort }
check("hvals") { r.hvals("H").sort }
check("hlen") { r.hlen("H") }
check("hstrlen") { r.call("hstrlen", "H", "f1") }
check("hexists") { r.hexists("H", "f1") }
check("hdel") { r.hdel("H", "f5", "nope") }
check("hincrby") { r.hincrby("H", "cnt", 5) }
check("hincrbyfloat") { r.hincrbyfloat("H", "flt", 0.25) }
check("hincrby bad") { r.hincrby("H", "f1", 1) }
check("hrandfield") { r.hrandfield("H", 2).size }
check("hrandfield values") { r.hrandfield("H", -2, with_values: true).size }
check("hscan") { c, p = r.hscan("H", 0, count: 100); [c, p.sort] }
check("hscan_each") { r.hscan_each("H", match: "f1").to_a }
# hyperloglog
check("pfadd") { r.pfadd("HL", %w[a b c]) }
check("pfcount") { r.pfcount("HL") }
check("pfmerge") { r.pfadd("HL2", %w[c d]); r.pfmerge("HL3", "HL", "HL2") }
check("pfcount many") { r.pfcount("HL", "HL2") }
check("pfadd wrongtype") { r.pfadd("s3", "x") }
# geo
check("geoadd") { r.geoadd("G", 13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania") }
check("geodist") { r.geodist("G", "Palermo", "Catania", "km") }
check("geohash") { r.geohash("G", %w[Palermo Catania]) }
check("geopos") { r.geopos("G", %w[Palermo nope]) }
check("georadius") { r.georadius("G", 15, 37, 200, "km", "WITHDIST", sort: "asc") }
check("georadiusbymember") { r.georadiusbymember("G", "Palermo", 200, "km", count: 1) }
check("geosearch") { r.call("geosearch", "G", "FROMLONLAT", 15, 37, "BYRADIUS", 200, "km", "ASC", "WITHCOORD") }
check("geoadd bad") { r.geoadd("G", 200, 100, "bad") }
# streams
check("xadd") { r.xadd("X", { f: "v" }, id: "1-1") }
check("xadd auto") { r.xadd("XA", { f: "w" }).match?(/\A\d+-\d+\z/) }
check("xadd maxlen") { r.xadd("X", { f: "w" }, id: "1-2"); r.xadd("X", { f: "x" }, id: "2-1", maxlen: 2, approximate: false) }
check("xadd nomkstream") { r.call("xadd", "nox", "NOMKSTREAM", "*", "f", "v") }
check("xadd old id") { r.xadd("X", { f: "v" }, id: "0-1") }
check("xlen") { r.xlen("X") }
check("xrange") { r.xrange("X", "-", "+").size }
check("xrevrange") { r.xrevrange("X", "+", "-", count: 1) }
check("xtrim") { r.xtrim("X", 1) }
check("xdel") { r.xadd("X", { a: 1 }, id: "3-1"); r.xdel("X", "3-1", "9-9") }
check("xread") { r.xread("X", "0-0", count: 5) }
check("xread block timeout") { r.xread("X", "$", block: 100) }
check("xgroup create") { r.xgroup(:create, "X", "g", "0", mkstream: true) }
check("xgroup create dup") { r.xgroup(:create, "X", "g", "0") }
check("xgroup setid") { r.xgroup(:setid, "X", "g", "0") }
check("xgroup createconsumer") { r.call("xgroup", "createconsumer", "X", "g", "c9") }
check("xreadgroup") { r.xreadgroup("g", "c1", "X", ">") }
check("xpending") { r.xpending("X", "g") }
check("xpending ext") { r.xpending("X", "g", "-", "+", 10).map { |e| e.reject { |k, _| k == "elapsed" } } }
check("xclaim") { r.xclaim("X", "g", "c2", 0, "2-1") }
check("xclaim justid") { r.xclaim("X", "g", "c2", 0, "2-1", justid: true) }
check("xautoclaim") { r.xautoclaim("X", "g", "c3", 0, "0-0") }
check("xautoclaim justid") { r.xautoclaim("X", "g", "c3", 0, "0-0", justid: true) }
check("xack") { r.xack("X", "g", "2-1") }
check("xinfo stream") { i = r.xinfo(:stream, "X"); i.keys.sort }
check("xinfo groups") { r.xinfo(:groups, "X").map { |g| g.keys.sort } }
check("xinfo consumers") { r.xinfo(:consumers, "X", "g").map { |c| c["name"] }.sort }
check("xgroup delconsumer") { r.xgroup(:delconsumer, "X", "g", "c1") }
check("xgroup destroy") { r.xgroup(:destroy, "X", "g") }
check("xreadgroup nogroup") { r.xreadgroup("g", "c1", "X", ">") }
# streams, odd arguments (nil is sent as an empty string)
check("xinfo empty") { r.xinfo("", "", "") }
check("xinfo nil") { r.xinfo(nil, nil, nil) }
check("xinfo stream nil") { r.xinfo(:stream, nil) }
check("xinfo groups nil") { r.xinfo(:groups, nil) }
check("xinfo consumers nil") { r.xinfo(:consumers, nil) }
check("xinfo consumers key nil") { r.xinfo(:consumers, "xs1", nil) }
check("xadd nil") { r.xadd(nil, {}) }
check("xadd empty fields") { r.xadd("xs1", {}) }
check("xadd bad id") { r.xadd("xs1", { f: 1 }, id: "invalid-format-entry-id") }
check("xadd 0-0") { r.xadd("xs0", { f: 1 }, id: "0-0") }
check("xadd maxlen approx") { r.xadd("xs1", { f: 1 }, id: "5-1", maxlen: 2, approximate: true) }
check("xtrim approx") { 4.times { |i| r.xadd("xs1", { f: i }, id: "6-#{i}") }; r.xtrim("xs1", 2, approximate: true) }
check("xtrim missing") { r.xtrim("not-existed", 2) }
check("xtrim empty") { r.xtrim("", "") }
check("xtrim nil") { r.xtrim(nil, nil) }
check("xtrim 0") { r.xtrim("xs9", 0) }
check("xtrim -1 approx") { r.xtrim("xs9", -1, approximate: true) }
check("xtrim -1") { r.xtrim("xs1", -1) }
check("xdel bad id") { r.xdel("xs1", "invalid_format") }
check("xdel nil") { r.xdel(nil, nil) }
check("xdel nil array") { r.xdel(nil, [nil]) }
check("xdel empty") { r.xdel("", "") }
check("xdel none") { r.xdel("xs1", []) }
check("xrange incomplete") { r.xadd("xs2", { f: 1 }, id: "0-1"); r.xadd("xs2", { f: 1 }, id: "1-1"); r.xadd("xs2", { f: 1 }, id: "2-1"); r.xrange("xs2", "0", "1") }
check("xrevrange incomplete") { r.xrevrange("xs2", "1", "0") }
check("xrange exclusive") { r.xrange("xs2", "(0-1", "+") }
check("xrange bad") { r.xrange("xs2", "invalid", "invalid") }
check("xrevrange bad") { r.xrevrange("xs2", "invalid", "invalid") }
check("xrange nil") { r.xrange(nil) }
check("xrange count 0") { r.xrange("xs2", count: 0) }
check("xlen nil") { r.xlen(nil) }
check("xread multi") { r.xread(%w[s2 s1], %w[0-1 0]) }
check("xread nil") { r.xread(nil, nil) }
check("xread empty") { r.xread("", "") }
check("xread none") { r.xread([], []) }
check("xread empty key") { r.xread([""], [""]) }
check("xread count a") { r.xread("xs1", "0-0", count: "a") }
check("xread ids mismatch") { r.xread("xs1", %w[0-0 0-0]) }
check("xread block woken") do
  t = Thread.new { sleep 0.3; other.xadd("xs3", { f: "v1" }, id: "0-1") }
  v = r.xread("xs3", 0, block: 0); t.join; v
end
check("xgroup create no key") { r.xgroup(:create, "xs4", "g1", "$") }
check("xgroup nil") { r.xgroup(nil, nil, nil) }
check("xgroup empty") { r.xgroup("", "", "") }
check("xgroup setid missing group") { r.xgroup(:setid, "xs2", "nog", "0") }
check("xreadgroup noack") { r.xgroup(:create, "xs2", "g1", "0"); r.xreadgroup("g1", "c1", "xs2", ">", noack: true) }
check("xpending after noack") { r.xpending("xs2", "g1") }
check("xreadgroup block timeout") { r.xreadgroup("g1", "c1", "xs2", ">", block: 100) }
check("xreadgroup history") { r.xreadgroup("g1", "c1", "xs2", "0") }
check("xreadgroup nil") { r.xreadgroup(nil, nil, nil, nil) }
check("xreadgroup none") { r.xreadgroup("", "", [], []) }
check("xreadgroup empty key") { r.xreadgroup("", "", [""], [""]) }
check("xreadgroup count a") { r.xreadgroup("g1", "c1", "xs2", ">", count: "a") }
check("xreadgroup ids mismatch") { r.xreadgroup("g1", "c1", "xs2", %w[> >]) }
check("xack nil") { r.xack(nil, nil, nil) }
check("xack empty") { r.xack("", "", "") }
check("xack none") { r.xack("", "", []) }
check("xack empty id") { r.xack("", "", [""]) }
check("xclaim nil") { r.xclaim(nil, nil, nil, nil, nil) }
check("xclaim empty") { r.xclaim("", "", "", "", "") }
check("xclaim options") do
  r.xadd("xs5", { f: "v1" }, id: "0-1"); r.xgroup(:create, "xs5", "g1", "$")
  r.xadd("xs5", { f: "v2" }, id: "0-2"); r.xadd("xs5", { f: "v3" }, id: "0-3")
  r.xreadgroup("g1", "c1", "xs5", ">"); sleep 0.02
  [r.xclaim("xs5", "g1", "c2", 10, %w[0-2 0-3], idle: 0),
   r.xclaim("xs5", "g1", "c2", 0, "0-2", time: (Time.now.to_f * 1000).to_i),
   r.xclaim("xs5", "g1", "c2", 0, "0-2", retrycount: 10, justid: true),
   r.xclaim("xs5", "g1", "c2", 0, "0-1", force: true)]
end
check("xpending consumer") { r.xpending("xs5", "g1", "-", "+", 10, "c2").map { |e| e.reject { |k, _| k == "elapsed" } } }
check("xpending idle") { r.call("xpending", "xs5", "g1", "IDLE", 100_000, "-", "+", 10) }
check("xinfo stream full") { r.call("xinfo", "stream", "xs5", "full").each_slice(2).map(&:first) }
# pipelining and transactions
check("pipelined") { r.pipelined { |p| p.set("pk", 1); p.incr("pk"); p.get("pk") } }
check("pipelined future") { f = nil; r.pipelined { |p| f = p.incr("pk") }; f.value }
check("pipelined error") { r.pipelined { |p| p.set("pk2", "x"); p.incr("pk2"); p.get("pk2") } }
check("multi") { r.multi { |m| m.set("mk", 1); m.incr("mk") } }
check("multi error inside") { r.multi { |m| m.set("mk2", "x"); m.incr("mk2"); m.get("mk2") } }
check("multi abort") { r.multi { |m| m.set("mk3", 1); m.call("nosuchcommand") } }
check("watch unchanged") { r.watch("wk") { r.multi { |m| m.set("wk", 1) } } }
check("watch conflict") { r.watch("wk") { other.set("wk", 2); r.multi { |m| m.set("wk", 3) } } }
check("unwatch") { r.watch("wk"); r.unwatch }
check("discard") { r.multi; r.set("dk", 1); r.discard }
# scripting
check("eval") { r.eval("return {KEYS[1], ARGV[1], 3, redis.call('incr', KEYS[1])}", keys: ["ek"], argv: ["x"]) }
check("eval error") { r.eval("return redis.call('lpush', KEYS[1], 'x')", keys: ["s3"]) }
check("eval error_reply") { r.eval("return redis.error_reply('MY failure')") }
check("eval status") { r.eval("return redis.status_reply('FINE')") }
check("eval nil") { r.eval("return nil") }
check("eval float") { r.eval("return 3.99") }
check("eval bool") { r.eval("return {true, false}") }
check("script load") { r.script(:load, "return 'hi'") }
check("evalsha") { r.evalsha(r.script(:load, "return 'hi'")) }
check("script exists") { r.script(:exists, [r.script(:load, "return 1"), "0" * 40]) }
check("script exists one") { r.script(:exists, "0" * 40) }
check("script flush") { r.script(:flush) }
check("evalsha noscript") { r.evalsha("0" * 40) }
check("eval syntax") { r.eval("return +") }
check("function load") { r.call("function", "load", "#!lua name=tlib\nredis.register_function('tf', function(k, a) return a[1] end)") }
check("fcall") { r.call("fcall", "tf", 0, "yo") }
check("function delete") { r.call("function", "delete", "tlib") }
# pub/sub
check("publish none") { r.publish("ch", "m") }
check("subscribe") do
  got = []
  t = Thread.new do
    sub = Redis.new(host: "127.0.0.1", port: port)
    sub.subscribe("ch1", "ch2") do |on|
      on.subscribe { |c, n| got << [:sub, c, n] }
      on.message { |c, m| got << [:msg, c, m]; sub.unsubscribe if m == "stop" }
      on.unsubscribe { |c, n| got << [:unsub, c, n] }
    end
  end
  sleep 0.1 until r.pubsub(:numsub, "ch1")[1].to_i == 1
  r.publish("ch1", "hello"); r.publish("ch2", "stop"); t.join(5)
  # a bare UNSUBSCRIBE answers for each channel in the server's own order (Redis: its dict's, which
  # varies run to run), so the channels are compared as a set and the counts in order
  unsubs = got.select { |e| e[0] == :unsub }
  got - unsubs + [[:unsub, unsubs.map { |e| e[1] }.sort, unsubs.map { |e| e[2] }]]
end
check("psubscribe") do
  got = []
  t = Thread.new do
    sub = Redis.new(host: "127.0.0.1", port: port)
    sub.psubscribe("news.*") do |on|
      on.psubscribe { |p, n| got << [:psub, p, n] }
      on.pmessage { |p, c, m| got << [:pmsg, p, c, m]; sub.punsubscribe }
      on.punsubscribe { |p, n| got << [:punsub, p, n] }
    end
  end
  sleep 0.1 until r.pubsub(:numpat) == 1
  r.publish("news.tech", "x"); t.join(5); got
end
check("subscribe_with_timeout") do
  sub = Redis.new(host: "127.0.0.1", port: port)
  sub.subscribe_with_timeout(0.3, "quiet") { |on| on.message { |_c, _m| } }
end
check("pubsub channels") { r.pubsub(:channels, "*") }
check("subscribed?") { r.subscribed? }
# connection and server
check("ping") { r.ping }
check("ping msg") { r.ping("hey") }
check("echo") { r.echo("e") }
check("select") { o = Redis.new(host: "127.0.0.1", port: port); [o.select(2), o.select(99)] }
check("swapdb") { r.swapdb(9, 12); r.swapdb(9, 12) }
check("dbsize") { r.dbsize.positive? }
check("info keys") { %w[redis_version connected_clients used_memory role].map { |k| r.info.key?(k) } }
check("info section") { r.info("keyspace").keys.include?("db9") }
check("info commandstats") { r.info(:commandstats)["get"]&.key?("calls") }
check("config get") { r.config(:get, "maxmemory-policy") }
check("config set") { r.config(:set, "slowlog-log-slower-than", 10_000) }
check("config set bad") { r.config(:set, "nope-param", 1) }
check("time") { r.time.size }
check("lastsave") { r.lastsave.class }
check("client setname") { r.client(:setname, "rb-trial") }
check("client getname") { r.client(:getname) }
check("client list") { r.client(:list).find { |c| c["name"] == "rb-trial" }&.key?("addr") }
check("client id") { r.client(:id).class }
check("client info") { r.call("client", "info").include?("name=rb-trial") }
check("client kill missing") { r.client(:kill, "127.0.0.1:1") }
check("slowlog len") { r.slowlog(:len).class }
check("slowlog reset") { r.slowlog(:reset) }
check("memory usage") { r.call("memory", "usage", "H").positive? }
check("wait") { r.wait(0, 10) }
check("unknown command") { r.call("nosuchcommand", "x") }
check("wrong arity") { r.call("get") }
check("command count") { r.call("command", "count") > 200 }
check("connected?") { r.connected? }
check("quit") { o = Redis.new(host: "127.0.0.1", port: port); o.ping; o.quit }
check("close reconnect") { r.close; r.get("pk") }
check("id") { r.id.sub(":#{port}/", ":PORT/") }
# server control, as redis-rb's remote-server and persistence tests use it
check("info fields") do
  i = r.info
  %w[redis_version total_connections_received connected_clients total_commands_processed connected_slaves
     uptime_in_seconds used_memory uptime_in_days rdb_changes_since_last_save rdb_last_save_time].map { |k| [k, i.key?(k)] }
end
check("config resetstat") { [r.config(:resetstat), r.ping, r.info(:commandstats)["ping"]] .then { |a| [a[0], a[1], a[2]["calls"]] } }
check("monitor") do
  log = []
  t = Thread.new do
    Redis.new(host: "127.0.0.1", port: port, db: 9).monitor do |line|
      log << line
      break if log.size == 2
    end
  end
  Thread.pass while log.empty?
  r.set("mon", "s1"); t.join(5)
  [log[0], log[-1].sub(/\A\+?\d+\.\d+ \[9 [^\]]+\]/, "TIME [9 ADDR]")]
end
check("monitor break value") { Redis.new(host: "127.0.0.1", port: port).monitor { |line| break line } }
check("object idletime") { r.set("oi", 1); r.object(:idletime, "oi").class }
check("object freq") { r.object(:freq, "oi") }
check("object help") { r.object(:help).class }
check("debug object") { r.debug(:object, "oi").class }
check("save") { r.save }
check("bgsave") { r.bgsave }
check("lastsave class") { r.lastsave.class }
check("bgrewriteaof") { r.bgrewriteaof }
check("slaveof no one") { r.slaveof("no", "one") }
check("role") { r.call("role") }
# redis-server makes this connection a replica; the master's replication offset then grows with its pings
check("sync") { r.sync[0, 9] }
check("config get wildcard") { r.config(:get, "maxmemory*").keys.sort }
check("config get timeout") { r.config(:get, "timeout") }
check("config set timeout") { [r.config(:set, "timeout", 100), r.config(:set, "timeout", 0)] }
check("config rewrite") { r.config(:rewrite) }
check("dbsize db14") { o = Redis.new(host: "127.0.0.1", port: port, db: 14); o.flushdb; o.set("bar", "s3"); o.dbsize }
check("move to db14") { o = Redis.new(host: "127.0.0.1", port: port, db: 15); o.set("foo", "s1"); o.set("bar", "s2"); [o.move("foo", 14), o.move("bar", 14), o.get("bar")] }
check("big value") { v = "x" * 5_000_000; r.set("big", v); r.get("big") == v }
check("binary value") { v = (0..255).map(&:chr).join.b * 3; r.set("bin", v); r.get("bin").b == v }
check("utf-8 value") { r.set("utf", "été ☃"); r.get("utf") }
check("timeout blpop past read_timeout") { o = Redis.new(host: "127.0.0.1", port: port, read_timeout: 0.2); o.blpop("nol", timeout: 1) }
check("read_timeout hit") { o = Redis.new(host: "127.0.0.1", port: port, read_timeout: 0.2); o.eval("local t = redis.call('time') while true do local n = redis.call('time') if (n[1] - t[1]) * 1000000 + (n[2] - t[2]) > 500000 then return 1 end end") }
check("after busy script") { sleep 0.6; r.ping }
check("auth without password") { r.auth("nopass") }
check("auth user") { r.call("auth", "default", "nopass") }
check("hello 2") { r.call("hello", "2").each_slice(2).map(&:first) }
check("client pause") { [r.client(:pause, 10), r.ping] }
check("client unpause") { r.call("client", "unpause") }
check("client no-evict") { r.call("client", "no-evict", "on") }
check("client reply off") { o = Redis.new(host: "127.0.0.1", port: port); [o.call("client", "reply", "on"), o.ping] }
check("shutdown nosave wrong") { r.call("shutdown", "bogus") }
check("flushdb async") { r.flushdb(async: true) }
check("dbsize empty") { r.dbsize }
