// The timing checker on hand-made event sequences (plain C++, no SystemC): each rule passes
// the legal order and throws TimingViolation, naming the rule, for the broken one.
#include <gtest/gtest.h>

#include "gpurf/platform/check/timing_checker.h"

using namespace gpurf;

namespace {

TimingSpec spec() {
  TimingSpec s;
  s.warps = 4;
  s.regs_per_thread = 8;
  s.preds_per_thread = 4;
  s.banks = 4;
  s.slices = 4;
  s.bank_latency = 2;
  s.xbar_latency = 1;
  s.collector_ports = 1;
  s.collectors = 4;
  s.pipes[unsigned(Pipe::SP)] = {1, 4, 2};
  s.schedulers = 1;
  s.issue_width = 1;
  return s;
}

// One instruction: data sources/destinations and predicate sources/destinations.
struct Op {
  InstInfo info;
  WarpInst inst;
  Op(uint64_t seq, std::vector<uint16_t> dst, std::vector<uint16_t> src,
     std::vector<uint16_t> pdst = {}, std::vector<uint16_t> psrc = {}, unsigned warp = 0) {
    info.opname = "op";
    for (uint16_t r : dst) info.dst_reg[info.n_dst++] = r;
    for (uint16_t r : src) info.src_reg[info.n_src++] = r;
    for (uint16_t r : pdst) info.pdst_reg[info.n_pdst++] = r;
    for (uint16_t r : psrc) info.psrc_reg[info.n_psrc++] = r;
    inst.info = &info;
    inst.seq = seq;
    inst.warp = warp;
    inst.n_src = info.n_src;
    inst.n_dst = info.n_dst;
  }
};

constexpr unsigned kAll = 0xf;

// Drives `o` through the whole pipeline: issue at t, operands from bank `bank` (read at t+1,
// arriving after bank + crossbar latency), dispatch when all are in, SP latency, writes.
Cycle run(TimingChecker& c, Op& o, Cycle t, unsigned bank = 0) {
  const WarpInst& i = o.inst;
  c.allocated(i, 0, t);
  c.issue(i, t);
  Cycle last = t + 1;
  for (unsigned k = 0; k < o.info.n_src; ++k) {
    const Cycle g = t + 1 + k;
    c.read({&i, o.info.src_reg[k], Store::Bank, int(bank), 0, kAll, 0}, g);
    c.arrived(i, o.info.src_reg[k], 0, Store::Bank, kAll, g + 3);
    last = g + 3;
  }
  c.operands_read(i, last);
  c.dispatch(i, Pipe::SP, 4, last);
  c.complete(i, last + 4);
  for (unsigned k = 0; k < o.info.n_dst; ++k)
    c.write({&i, o.info.dst_reg[k], Store::Bank, int(bank), 0, kAll, i.seq}, last + 4 + k);
  c.retire(i, last + 4 + o.info.n_dst);
  return last + 4 + o.info.n_dst;
}

template <class F> std::string violation(F&& f) {
  try {
    f();
  } catch (const TimingViolation& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(TimingChecker, LegalSequencePasses) {
  TimingChecker c(spec());
  Op a(1, {1}, {}), b(2, {2}, {1});
  const Cycle t = run(c, a, 0);
  run(c, b, t);
  EXPECT_EQ(c.in_flight(), 0u);
  EXPECT_EQ(c.counts().bank_reads, 1u);
  EXPECT_EQ(c.counts().arch_writes, 2u);
}

// The old predicate bug (scan on fermi, PTX lines 53-54): `@%p2 bra` issued at 648 while the
// setp writing %p2 completed at 651. Legal only once the setp retired.
TEST(TimingChecker, PredicateReadBeforeItsWriteIsRaw) {
  TimingChecker c(spec());
  Op setp(1, {}, {1}, {2}), bra(2, {}, {}, {}, {2});
  const WarpInst& s = setp.inst;
  c.allocated(s, 0, 640);
  c.issue(s, 640);
  c.read({&s, 1, Store::Bank, 0, 0, kAll, 0}, 641);
  c.arrived(s, 1, 0, Store::Bank, kAll, 644);
  c.operands_read(s, 644);
  c.dispatch(s, Pipe::SP, 4, 647);
  const std::string v = violation([&] { c.issue(bra.inst, 648); });
  EXPECT_NE(v.find("(RAW)"), std::string::npos) << v;
  EXPECT_NE(v.find("p2"), std::string::npos) << v;

  TimingChecker ok(spec());
  Op setp2(1, {}, {1}, {2}), bra2(2, {}, {}, {}, {2});
  const Cycle t = run(ok, setp2, 640);
  EXPECT_EQ(violation([&] { run(ok, bra2, t); }), "");
}

TEST(TimingChecker, OperandArrivingEarlyOrLateBreaksLatency) {
  for (Cycle at : {Cycle(12), Cycle(14)}) { // read at 10 + bank 2 + crossbar 1 = 13
    TimingChecker c(spec());
    Op a(1, {2}, {1});
    c.allocated(a.inst, 0, 9);
    c.issue(a.inst, 9);
    c.read({&a.inst, 1, Store::Bank, 0, 0, kAll, 0}, 10);
    const std::string v = violation([&] { c.arrived(a.inst, 1, 0, Store::Bank, kAll, at); });
    EXPECT_NE(v.find("(latency)"), std::string::npos) << v;
  }
}

TEST(TimingChecker, TwoReadsOfOneSliceInACycleBreakPorts) {
  TimingChecker c(spec());
  Op a(1, {4}, {1, 2});
  c.allocated(a.inst, 0, 0);
  c.issue(a.inst, 0);
  c.read({&a.inst, 1, Store::Bank, 0, 0, 0x3, 0}, 1);
  // Disjoint slices of one bank may share a cycle (CMRC); overlapping ones may not.
  EXPECT_NE(violation([&] {
              c.read({&a.inst, 2, Store::Bank, 0, 0, 0x6, 0}, 1);
            }).find("(ports)"),
            std::string::npos);
  TimingChecker d(spec());
  Op b(1, {4}, {1, 2});
  d.allocated(b.inst, 0, 0);
  d.issue(b.inst, 0);
  d.read({&b.inst, 1, Store::Bank, 0, 0, 0x3, 0}, 1);
  EXPECT_EQ(violation([&] { d.read({&b.inst, 2, Store::Bank, 0, 0, 0xc, 0}, 1); }), "");
}

// 2r1w banks (the modern core's two read ports): two reads of one slice in a cycle are legal,
// a third is not, and each read port used counts a port cycle.
TEST(TimingChecker, TwoReadPortsTakeTwoReadsOfOneSlicePerCycle) {
  TimingSpec s = spec();
  s.bank_split_ports = true;
  s.bank_read_ports = 2;
  TimingChecker c(s);
  Op a(1, {4}, {1, 2, 3});
  c.allocated(a.inst, 0, 0);
  c.issue(a.inst, 0);
  c.read({&a.inst, 1, Store::Bank, 0, 0, kAll, 0}, 1);
  EXPECT_EQ(violation([&] { c.read({&a.inst, 2, Store::Bank, 0, 0, kAll, 0}, 1); }), "");
  EXPECT_EQ(c.counts().bank_port_cycles, 2u);
  EXPECT_NE(violation([&] {
              c.read({&a.inst, 3, Store::Bank, 0, 0, kAll, 0}, 1);
            }).find("(ports)"),
            std::string::npos);
}

// The port counts are slice masks by count level: a violation names the lowest of the slices
// over their limit (the slice a slice-by-slice count stops at), and split read ports count as
// many port cycles as the most reads of one slice.
TEST(TimingChecker, APortViolationNamesTheLowestSliceOverItsLimit) {
  TimingChecker c(spec());
  Op a(1, {4}, {1, 2});
  c.allocated(a.inst, 0, 0);
  c.issue(a.inst, 0);
  c.read({&a.inst, 1, Store::Bank, 0, 0, 0x6, 0}, 1);
  const std::string shared = violation([&] { // slices 1 and 2 read twice
    c.read({&a.inst, 2, Store::Bank, 0, 0, 0xe, 0}, 1);
  });
  EXPECT_NE(
      shared.find("slice 1 read by 2 accesses in one cycle or read and written (one shared port)"),
      std::string::npos)
      << shared;

  TimingSpec s = spec();
  s.bank_split_ports = true;
  s.bank_read_ports = 2;
  TimingChecker d(s);
  Op b(1, {4}, {1, 2, 3, 5});
  d.allocated(b.inst, 0, 0);
  d.issue(b.inst, 0);
  d.read({&b.inst, 1, Store::Bank, 0, 0, 0x1, 0}, 1);
  d.read({&b.inst, 2, Store::Bank, 0, 0, 0x3, 0}, 1);
  d.read({&b.inst, 3, Store::Bank, 0, 0, 0x2, 0}, 1);
  EXPECT_EQ(d.counts().bank_port_cycles, 2u); // slices 0 and 1 read twice each
  const std::string split = violation([&] {   // slices 0 and 1 read a third time
    d.read({&b.inst, 5, Store::Bank, 0, 0, 0x7, 0}, 1);
  });
  EXPECT_NE(split.find("slice 0 read by 3 accesses in one cycle"), std::string::npos) << split;

  // The collector's write port: two operands crossing in one cycle on slices 0, 1 and 3.
  TimingChecker e(spec());
  Op x(1, {4}, {1, 2});
  e.allocated(x.inst, 0, 0);
  e.issue(x.inst, 0);
  e.read({&x.inst, 1, Store::Bank, 0, 0, 0x3, 0}, 1);
  e.read({&x.inst, 2, Store::Bank, 1, 0, 0xb, 0}, 1);
  e.arrived(x.inst, 1, 0, Store::Bank, 0x3, 4);
  const std::string port = violation([&] { e.arrived(x.inst, 2, 0, Store::Bank, 0xb, 4); });
  EXPECT_NE(port.find("operands through one collector write port in a cycle (slice 0)"),
            std::string::npos)
      << port;
}

TEST(TimingChecker, DispatchBeforeTheLastOperandArrives) {
  TimingChecker c(spec());
  Op a(1, {2}, {1});
  c.allocated(a.inst, 0, 0);
  c.issue(a.inst, 0);
  c.read({&a.inst, 1, Store::Bank, 0, 0, kAll, 0}, 1);
  c.arrived(a.inst, 1, 0, Store::Bank, kAll, 4);
  const std::string v = violation([&] { c.dispatch(a.inst, Pipe::SP, 4, 3); });
  EXPECT_NE(v.find("(dispatch)"), std::string::npos) << v;
}

// W-C's decompression stage between the collector and the pipe: a compressed operand (fewer
// slices than the bank has) arrives without the stage; its instruction's result comes the
// stage later than the pipe's latency, at most `decompressors` operands pass per cycle, and an
// instruction without compressed operands has no stage.
TEST(TimingChecker, DecompressionStageAtDispatch) {
  TimingSpec sp = spec();
  sp.pipes[unsigned(Pipe::SP)] = {2, 4, 1};
  sp.decompressors = 1;
  sp.decompress_latency = 2;
  sp.decompress_at_dispatch = true;
  sp.issue_width = 3;
  // Instruction `o` (collector = its warp) reads r`src` from bank `bank` at 1, in `mask`'s slices:
  // in at 4.
  auto collect = [](TimingChecker& c, Op& o, unsigned bank, unsigned mask) {
    c.allocated(o.inst, o.inst.warp, 0);
    c.issue(o.inst, 0);
    c.read({&o.inst, o.info.src_reg[0], Store::Bank, int(bank), 0, mask, 0}, 1);
    c.arrived(o.inst, o.info.src_reg[0], o.inst.warp, Store::Bank, mask, 4);
  };
  {
    TimingChecker c(sp);
    Op a(1, {1}, {2}), b(2, {3}, {4}, {}, {}, 1), u(3, {5}, {6}, {}, {}, 2);
    collect(c, a, 0, 0x1);
    collect(c, b, 1, 0x1);
    collect(c, u, 2, kAll);
    c.dispatch(a.inst, Pipe::SP, 4 + 2, 4); // the decompressor's slot: cycle 4
    // b's operand cannot take the one decompressor in cycle 4 too
    EXPECT_NE(violation([&] { c.dispatch(b.inst, Pipe::SP, 4 + 2, 4); }).find("(ports)"),
              std::string::npos);
    // an uncompressed operand has no stage
    EXPECT_NE(violation([&] { c.dispatch(u.inst, Pipe::SP, 4 + 2, 5); }).find("(latency)"),
              std::string::npos);
    c.complete(a.inst, 10);
  }
  {
    TimingChecker c(sp);
    Op a(1, {1}, {2}), b(2, {3}, {4}, {}, {}, 1);
    collect(c, a, 0, 0x1);
    collect(c, b, 1, 0x1);
    c.dispatch(a.inst, Pipe::SP, 4 + 2, 4);
    c.dispatch(b.inst, Pipe::SP, 4 + 3, 4); // waits a cycle for the decompressor
    // the result comes the stage after the pipe's latency, not before
    EXPECT_NE(violation([&] { c.complete(a.inst, 8); }).find("(latency)"), std::string::npos);
  }
  {
    TimingChecker c(sp);
    Op a(1, {1}, {2});
    collect(c, a, 0, 0x1);
    // a compressed operand's instruction skipping the stage
    EXPECT_NE(violation([&] { c.dispatch(a.inst, Pipe::SP, 4, 4); }).find("(latency)"),
              std::string::npos);
  }
}

TEST(TimingChecker, InitiationIntervalAndResultLatency) {
  TimingChecker c(spec());
  Op a(1, {1}, {}, {}, {}, 0), b(2, {2}, {}, {}, {}, 1);
  c.allocated(a.inst, 0, 0);
  c.issue(a.inst, 0);
  c.allocated(b.inst, 1, 1);
  c.issue(b.inst, 1);
  c.operands_read(a.inst, 2);
  c.dispatch(a.inst, Pipe::SP, 4, 2);
  c.operands_read(b.inst, 3);
  // One SP unit with ii 2: the next dispatch no earlier than cycle 4.
  EXPECT_NE(violation([&] { c.dispatch(b.inst, Pipe::SP, 4, 3); }).find("(initiation interval)"),
            std::string::npos);
  // Latency 4: the result is ready at exactly 6.
  EXPECT_NE(violation([&] { c.complete(a.inst, 7); }).find("(latency)"), std::string::npos);
}

// Latency classes: SP (1 unit, latency 4, ii 2) runs fp_fma at latency 6 with ii 3 and
// int_add with the pipe's timing; int_mul is moved onto the SFU (1 unit, 20/4).
TimingSpec class_spec() {
  TimingSpec s = spec();
  s.pipes[unsigned(Pipe::SFU)] = {1, 20, 4};
  s.classes[unsigned(OpClass::FpFma)] = {-1, 6, 3};
  s.classes[unsigned(OpClass::IntMul)] = {int(Pipe::SFU), 0, 0};
  return s;
}

// Issues `o` of class `c` (front-end pipe `p`) with no sources and reads it at `t`.
void ready_at(TimingChecker& k, Op& o, OpClass c, Pipe p, Cycle t) {
  o.info.op_class = c;
  o.info.pipe = p;
  k.allocated(o.inst, 0, t);
  k.issue(o.inst, t);
  k.operands_read(o.inst, t);
}

TEST(TimingChecker, ResultLatencyIsTheClassLatency) {
  TimingChecker c(class_spec());
  Op f(1, {1}, {}), a(2, {2}, {}, {}, {}, 1);
  ready_at(c, f, OpClass::FpFma, Pipe::SP, 0);
  c.dispatch(f.inst, Pipe::SP, 6, 1);
  // The pipe's latency 4 is wrong for fp_fma: 6.
  EXPECT_NE(violation([&] { c.complete(f.inst, 5); }).find("(latency)"), std::string::npos);
  TimingChecker d(class_spec());
  ready_at(d, f, OpClass::FpFma, Pipe::SP, 0);
  d.dispatch(f.inst, Pipe::SP, 6, 1);
  EXPECT_EQ(violation([&] { d.complete(f.inst, 7); }), "");
  // A class without its own latency keeps the pipe's.
  ready_at(d, a, OpClass::IntAdd, Pipe::SP, 3);
  d.dispatch(a.inst, Pipe::SP, 4, 4);
  EXPECT_NE(violation([&] { d.complete(a.inst, 10); }).find("(latency)"), std::string::npos);
}

TEST(TimingChecker, AClassReservesTheUnitForItsIi) {
  TimingChecker c(class_spec());
  Op f(1, {1}, {}), a(2, {2}, {}, {}, {}, 1), b(3, {3}, {}, {}, {}, 2);
  ready_at(c, f, OpClass::FpFma, Pipe::SP, 0);
  ready_at(c, a, OpClass::IntAdd, Pipe::SP, 1);
  c.dispatch(f.inst, Pipe::SP, 6, 1);
  // fp_fma's ii 3 holds the SP unit through cycle 3 (the pipe's ii 2 would free it at 3).
  EXPECT_NE(violation([&] { c.dispatch(a.inst, Pipe::SP, 4, 3); }).find("(initiation interval)"),
            std::string::npos);
  // int_add keeps the pipe's ii 2: busy through cycle 5.
  for (Cycle at : {Cycle(5), Cycle(6)}) {
    TimingChecker d(class_spec());
    ready_at(d, f, OpClass::FpFma, Pipe::SP, 0);
    ready_at(d, a, OpClass::IntAdd, Pipe::SP, 1);
    ready_at(d, b, OpClass::IntAdd, Pipe::SP, 2);
    d.dispatch(f.inst, Pipe::SP, 6, 1);
    d.dispatch(a.inst, Pipe::SP, 4, 4);
    const std::string v = violation([&] { d.dispatch(b.inst, Pipe::SP, 4, at); });
    EXPECT_EQ(v.find("(initiation interval)") != std::string::npos, at == 5) << v;
  }
}

TEST(TimingChecker, AClassRunsOnItsPipe) {
  TimingChecker c(class_spec());
  Op m(1, {1}, {});
  ready_at(c, m, OpClass::IntMul, Pipe::INT, 0);
  // int_mul moved onto the SFU: the front-end's INT (folded onto SP) is the wrong pipe.
  const std::string v = violation([&] { c.dispatch(m.inst, Pipe::SP, 4, 1); });
  EXPECT_NE(v.find("runs on the sfu pipe"), std::string::npos) << v;
  TimingChecker d(class_spec());
  ready_at(d, m, OpClass::IntMul, Pipe::INT, 0);
  d.dispatch(m.inst, Pipe::SFU, 20, 1);
  EXPECT_EQ(violation([&] { d.complete(m.inst, 21); }), "");
}

TEST(TimingChecker, WriteBeforeAnOlderReadIsWar) {
  TimingChecker c(spec());
  Op reader(1, {3}, {1}), writer(2, {1}, {});
  c.allocated(reader.inst, 0, 0);
  c.issue(reader.inst, 0);
  const std::string v = violation([&] { run(c, writer, 1, 1); });
  EXPECT_NE(v.find("(WAR)"), std::string::npos) << v;
}

TEST(TimingChecker, IssueWidthAndActiveSet) {
  TimingSpec s = spec();
  s.active_limit = 1;
  TimingChecker c(s);
  Op a(1, {1}, {}, {}, {}, 0), b(2, {2}, {}, {}, {}, 1);
  c.active(0, 0, 0, true, 0);
  EXPECT_NE(violation([&] { c.active(0, 0, 1, true, 0); }).find("(two-level)"), std::string::npos);
  TimingChecker d(s);
  d.active(0, 0, 0, true, 0);
  d.issue(a.inst, 5);
  EXPECT_NE(violation([&] { d.issue(b.inst, 6); }).find("outside the active set"),
            std::string::npos);
  TimingChecker e(spec());
  e.issue(a.inst, 5);
  EXPECT_NE(violation([&] { e.issue(b.inst, 5); }).find("(issue width)"), std::string::npos);
}

TEST(TimingChecker, RetireWithAnUnwrittenDestination) {
  TimingChecker c(spec());
  Op a(1, {1, 2}, {});
  c.allocated(a.inst, 0, 0);
  c.issue(a.inst, 0);
  c.operands_read(a.inst, 1);
  c.dispatch(a.inst, Pipe::SP, 4, 1);
  c.complete(a.inst, 5);
  c.write({&a.inst, 1, Store::Bank, 0, 0, kAll, 1}, 5);
  EXPECT_NE(violation([&] { c.retire(a.inst, 6); }).find("1 of 2 destinations"), std::string::npos);
}

// Malekeh's caching collectors: the checker's own model of what each CCU may hold.
namespace {

TimingSpec ccu_spec() {
  TimingSpec s = spec();
  s.ccu_hit_latency = 1;
  return s;
}

// `o` (no sources) in collector `col`: its result is written to bank 0 at t + 5, and through
// port D into collector `into` (-1: not) in the same cycle (`ccu_at` moves that write).
void produce(TimingChecker& c, Op& o, Cycle t, unsigned col, int into, Cycle ccu_at = 0) {
  const WarpInst& i = o.inst;
  c.allocated(i, col, t);
  c.issue(i, t);
  c.operands_read(i, t + 1);
  c.dispatch(i, Pipe::SP, 4, t + 1);
  c.complete(i, t + 5);
  c.write({&i, o.info.dst_reg[0], Store::Bank, 0, 0, kAll, i.seq}, t + 5);
  if (into >= 0)
    c.write({&i, o.info.dst_reg[0], Store::Ccu, into, 0, kAll, i.seq}, ccu_at ? ccu_at : t + 5);
  c.retire(i, t + 6);
}

// `o` reads its one source from the table of collector `col`, allocated at t, arriving at
// `arrive` (default: t + hit latency 1).
void hit(TimingChecker& c, Op& o, Cycle t, unsigned col, Cycle arrive = 0) {
  const WarpInst& i = o.inst;
  c.allocated(i, col, t);
  c.issue(i, t);
  c.read({&i, o.info.src_reg[0], Store::Ccu, int(col), 0, kAll, 0}, t);
  c.arrived(i, o.info.src_reg[0], col, Store::Ccu, kAll, arrive ? arrive : t + 1);
}

struct CcuPair {
  Op a{1, {1}, {}}, b{2, {2}, {1}};
  CcuPair() {
    a.inst.dst[0].reuse_near = true;
    b.inst.src[0].version = 1;
  }
};

} // namespace

TEST(TimingCheckerCcu, NearResultCachedThenHitPasses) {
  TimingChecker c(ccu_spec());
  CcuPair p;
  produce(c, p.a, 0, 0, 0);
  hit(c, p.b, 10, 0);
  c.operands_read(p.b.inst, 11);
  c.dispatch(p.b.inst, Pipe::SP, 4, 11);
  EXPECT_EQ(c.counts().ccu_writes, 1u);
  EXPECT_EQ(c.counts().ccu_reads, 1u);
}

TEST(TimingCheckerCcu, HitInACollectorThatNeverHeldTheValue) {
  TimingChecker c(ccu_spec());
  CcuPair p;
  produce(c, p.a, 0, 0, 0);
  EXPECT_NE(violation([&] { hit(c, p.b, 10, 1); }).find("(ccu)"), std::string::npos);
}

TEST(TimingCheckerCcu, FarResultWrittenIntoTheTableBreaksTheWriteFilter) {
  TimingChecker c(ccu_spec());
  CcuPair p;
  p.a.inst.dst[0].reuse_near = false;
  EXPECT_NE(violation([&] { produce(c, p.a, 0, 0, 0); }).find("write filter"), std::string::npos);
}

TEST(TimingCheckerCcu, TableWriteWithoutTheBankWriteInItsCycle) {
  TimingChecker c(ccu_spec());
  CcuPair p;
  EXPECT_NE(violation([&] { produce(c, p.a, 0, 0, 0, 7); }).find("without its bank write"),
            std::string::npos);
}

TEST(TimingCheckerCcu, StaleHitAfterAnUncachedOverwrite) {
  TimingChecker c(ccu_spec());
  CcuPair p;
  produce(c, p.a, 0, 0, 0);
  Op a2{2, {1}, {}}; // overwrites r1, far: only the bank takes it
  produce(c, a2, 8, 0, -1);
  Op b{3, {2}, {1}};
  b.inst.src[0].version = 2;
  EXPECT_NE(violation([&] { hit(c, b, 20, 0); }).find("cannot hold it"), std::string::npos);
}

TEST(TimingCheckerCcu, AnotherWarpFlushesTheTable) {
  TimingChecker c(ccu_spec());
  CcuPair p;
  produce(c, p.a, 0, 0, 0);
  Op other{2, {3}, {}, {}, {}, 1}; // warp 1 takes collector 0
  produce(c, other, 8, 0, -1);
  Op b{3, {2}, {1}};
  b.inst.src[0].version = 1;
  EXPECT_NE(violation([&] { hit(c, b, 20, 0); }).find("(ccu)"), std::string::npos);
  EXPECT_EQ(c.counts().ccu_warp_changes, 2u);
}

TEST(TimingCheckerCcu, HitArrivingAfterTheHitLatency) {
  TimingChecker c(ccu_spec());
  CcuPair p;
  produce(c, p.a, 0, 0, 0);
  EXPECT_NE(violation([&] { hit(c, p.b, 10, 0, 12); }).find("(latency)"), std::string::npos);
}

TEST(TimingCheckerCcu, TwoResultsThroughPortDInOneCycle) {
  TimingChecker c(ccu_spec());
  Op a{1, {1}, {}}, a2{2, {3}, {}};
  a.inst.dst[0].reuse_near = a2.inst.dst[0].reuse_near = true;
  for (Op* o : {&a, &a2}) {
    c.allocated(o->inst, 0, 0);
    c.issue(o->inst, o == &a ? 0 : 1);
    c.operands_read(o->inst, 2);
  }
  c.dispatch(a.inst, Pipe::SP, 4, 2);
  c.dispatch(a2.inst, Pipe::SP, 4, 4);
  c.complete(a.inst, 6);
  c.complete(a2.inst, 8);
  c.write({&a.inst, 1, Store::Bank, 0, 0, kAll, 1}, 8);
  c.write({&a.inst, 1, Store::Ccu, 0, 0, kAll, 1}, 8);
  c.write({&a2.inst, 3, Store::Bank, 1, 0, kAll, 2}, 8);
  EXPECT_NE(violation([&] {
              c.write({&a2.inst, 3, Store::Ccu, 0, 0, kAll, 2}, 8);
            }).find("port D"),
            std::string::npos);
}

// cp.async: a wait_group N may issue only once every copy of the groups it covers (all but the
// N newest committed) retired; the copies of newer groups may still be in flight.
namespace {
struct AsyncOp : Op {
  AsyncOp(uint64_t seq, InstInfo::Async kind, uint8_t n = 0) : Op(seq, {}, {}) {
    info.async = kind;
    info.async_n = n;
  }
};
} // namespace

TEST(TimingChecker, AWaitIssuedBeforeItsCopiesRetiredBreaksAsync) {
  TimingChecker c(spec());
  AsyncOp copy(1, InstInfo::Async::Copy), commit(2, InstInfo::Async::Commit),
      wait(3, InstInfo::Async::Wait, 0);
  c.allocated(copy.inst, 0, 0);
  c.issue(copy.inst, 0);
  c.operands_read(copy.inst, 1);
  c.dispatch(copy.inst, Pipe::SP, 4, 1);
  c.complete(copy.inst, 5);
  Cycle t = run(c, commit, 3);
  // The copy has not retired: its bytes may not be in shared memory yet.
  EXPECT_NE(violation([&] { run(c, wait, t); }).find("async"), std::string::npos);
}

TEST(TimingChecker, AWaitCoversOnlyTheOlderGroups) {
  TimingChecker c(spec());
  AsyncOp old_copy(1, InstInfo::Async::Copy), commit1(2, InstInfo::Async::Commit),
      new_copy(3, InstInfo::Async::Copy), commit2(4, InstInfo::Async::Commit),
      wait1(5, InstInfo::Async::Wait, 1), wait_all(6, InstInfo::Async::WaitAll);
  Cycle t = run(c, old_copy, 0);
  t = run(c, commit1, t);
  // The newer copy issues and stays in flight.
  c.allocated(new_copy.inst, 0, t);
  c.issue(new_copy.inst, t);
  c.operands_read(new_copy.inst, t + 1);
  c.dispatch(new_copy.inst, Pipe::SP, 4, t + 1);
  c.complete(new_copy.inst, t + 5);
  t = run(c, commit2, t + 3);
  t = run(c, wait1, t); // group 0 complete, group 1 (the newest) may be pending
  EXPECT_NE(violation([&] { run(c, wait_all, t); }).find("group 1"), std::string::npos);
}

// frontend.reg64: one_operand: a 64-bit operand's high half is a companion of its low half's
// access: right after it, in the same cycle, it takes no port (overlapping slices, another
// bank's port, the collector's write port) and counts no port cycle; a companion in another
// cycle breaks the ports rule.
TEST(TimingChecker, HighHalfRidesItsLowHalfsPortCycle) {
  TimingChecker c(spec());
  Op a(1, {4}, {1, 2});
  a.info.src_hi = 1u << 1;
  c.allocated(a.inst, 0, 0);
  c.issue(a.inst, 0);
  c.read({&a.inst, 1, Store::Bank, 0, 0, kAll, 0}, 1);
  EXPECT_EQ(violation([&] {
              c.read({&a.inst, 2, Store::Bank, 1, 0, kAll, 0, true}, 1);
              c.arrived(a.inst, 1, 0, Store::Bank, kAll, 4);
              c.arrived(a.inst, 2, 0, Store::Bank, kAll, 4);
            }),
            "");
  EXPECT_EQ(c.counts().bank_port_cycles, 1u);
  EXPECT_EQ(c.counts().companion_reads, 1u);
  EXPECT_EQ(c.counts().bank_reads, 2u);

  TimingChecker d(spec());
  Op b(1, {4}, {1, 2});
  d.allocated(b.inst, 0, 0);
  d.issue(b.inst, 0);
  d.read({&b.inst, 1, Store::Bank, 0, 0, kAll, 0}, 1);
  const std::string v = violation([&] {
    d.read({&b.inst, 2, Store::Bank, 1, 0, kAll, 0, true}, 2);
  });
  EXPECT_NE(v.find("(ports)"), std::string::npos) << v;
  EXPECT_NE(v.find("without its low half"), std::string::npos) << v;
}
