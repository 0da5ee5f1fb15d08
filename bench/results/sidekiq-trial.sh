#!/usr/bin/env bash
# Sidekiq 6.4 (Debian's ruby-sidekiq) against one server, started here on PORT with fresh data: 156 jobs
# pushed (one at a time, in bulk, scheduled with perform_in/perform_at, to a second queue), a
# `sidekiq` process with 5 threads works them, a failing job goes to the retry set and, retried, fails
# again; Sidekiq::Stats, Queue, ScheduledSet, RetrySet, DeadSet and ProcessSet are read throughout.
# The output must be the same on redis-server and on Colossal.
# usage: bench/results/sidekiq-trial.sh redis|ROOT PORT     (WORK, default /tmp/sidekiq-trial)
set -u
server=$1; port=$2
work=${WORK:-/tmp/sidekiq-trial}
mkdir -p "$work"
command -v sidekiq >/dev/null || apt-get install -y -q ruby-sidekiq ruby-redis >/dev/null \
  || { echo "apt-get install ruby-sidekiq ruby-redis failed" >&2; exit 2; }
cat > "$work/jobs.rb" <<'RUBY'
require "sidekiq"
class AddJob
  include Sidekiq::Job
  def perform(a, b)
    Sidekiq.redis { |r| r.rpush("results", (a + b).to_s) }
  end
end
class FailJob
  include Sidekiq::Job
  sidekiq_options retry: 1
  def perform(x)
    raise "boom #{x}"
  end
end
class SlowJob
  include Sidekiq::Job
  def perform(n)
    sleep 0.2
    Sidekiq.redis { |r| r.incrby("slow", n) }
  end
end
RUBY
cat > "$work/boot.rb" <<'RUBY'
require "sidekiq"
require_relative "jobs"
Sidekiq.configure_server { |c| c.redis = { url: ENV.fetch("REDIS_URL") }; c.average_scheduled_poll_interval = 1 }
RUBY
cat > "$work/drive.rb" <<'RUBY'
require "sidekiq"
require "sidekiq/api"
require_relative "jobs"
url = ENV.fetch("REDIS_URL")
Sidekiq.configure_client { |c| c.redis = { url: url } }
100.times { |i| AddJob.perform_async(i, 1) }
AddJob.perform_in(2, 1000, 1)
AddJob.perform_at(Time.now + 3, 2000, 1)
FailJob.perform_async("x")
5.times { |i| SlowJob.perform_async(i) }
AddJob.set(queue: "other").perform_async(7, 7)
Sidekiq::Client.push_bulk("class" => AddJob, "args" => (1..50).map { |i| [i, 100] })
puts "enqueued default=#{Sidekiq::Queue.new.size} other=#{Sidekiq::Queue.new("other").size} scheduled=#{Sidekiq::ScheduledSet.new.size}"
puts "queues=#{Sidekiq::Queue.all.map(&:name).sort.inspect}"
pid = spawn({"REDIS_URL" => url}, "sidekiq", "-r", "./boot.rb", "-q", "default", "-q", "other", "-c", "5",
            out: "sidekiq.log", err: [:child, :out])
t0 = Time.now
loop do
  sleep 0.5
  break if Sidekiq.redis { |r| r.llen("results") } >= 153 || Time.now - t0 > 40
end
sleep 1
stats = Sidekiq::Stats.new
puts "results=#{Sidekiq.redis { |r| r.lrange("results", 0, -1) }.map(&:to_i).sum} count=#{Sidekiq.redis { |r| r.llen("results") }}"
puts "slow=#{Sidekiq.redis { |r| r.get("slow") }}"
puts "processed>=157:#{stats.processed >= 157} failed=#{stats.failed} retry=#{Sidekiq::RetrySet.new.size} dead=#{Sidekiq::DeadSet.new.size} scheduled=#{stats.scheduled_size} enqueued=#{stats.enqueued}"
r = Sidekiq::RetrySet.new.first
puts "retry job: #{r && r.klass} #{r && r.args.inspect} #{r && r['error_message']}"
ps = Sidekiq::ProcessSet.new
puts "processes=#{ps.size} concurrency=#{ps.first && ps.first['concurrency']} queues=#{ps.first && ps.first['queues'].sort.inspect}"
puts "daily history kept: #{Sidekiq.redis { |r| r.keys('stat:processed*').size > 0 }}"
Sidekiq::RetrySet.new.each(&:retry)
sleep 6
puts "after retry: retry=#{Sidekiq::RetrySet.new.size} dead=#{Sidekiq::DeadSet.new.size} failed=#{Sidekiq::Stats.new.failed}"
puts "redis_info: #{Sidekiq.redis_info.slice('uptime_in_days', 'connected_clients').keys.inspect} peak shown: #{!Sidekiq.redis_info['used_memory_peak_human'].nil?}"
Process.kill("TERM", pid); Process.wait(pid)
puts "processes after stop=#{Sidekiq::ProcessSet.new.size}"
RUBY
. "$(dirname "$0")/start-server.sh"
start_server "$server" "$port" "$work/data-$port" || exit 2
(cd "$work" && REDIS_URL=redis://127.0.0.1:$port/0 timeout 120 ruby drive.rb 2>&1 | grep -v "will always return an Integer")
kill "$pid"; wait "$pid" 2>/dev/null
