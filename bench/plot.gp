# SPDX-License-Identifier: BSD-3-Clause
# Two PNGs per collective for `make bench` (scripts/bench-sweep.sh):
# latency against message size, log-log, tcomm (solid) against the MPI
# baseline on the same bytes (dashed), one colour per result set; and
# with mode='ratio', tcomm / MPI (top) and tcomm / bound (bottom) against
# size, with the lines 1 and the targets (0.8, 1.15; 1.5 x bound).
#
# gnuplot -e "coll='allreduce'; files='a.dat b.dat'; titles='f32 bf16';
#             out='allreduce.png'; np=2" plot.gp
# .dat columns: bytes, tcomm median us, MPI median us, tcomm mean us,
# MPI mean us, ratio, difference us, best us, MPI best us, bound us, MPI
# call.

if (!exists("np")) np = 2
set terminal pngcairo size 960,640 font ",11"
set output out
set key top left box opaque
set grid xtics ytics mxtics mytics lw 0.5 lc rgb "#dddddd"
set ylabel "latency (us, median of interleaved blocks)"

if (coll eq "barrier") {
    set title sprintf("tcomm barrier vs MPI\\_Barrier, %d ranks", np)
    set style fill solid 0.8 border -1
    set boxwidth 0.9
    set yrange [0:*]
    set xrange [0:3 * words(files)]
    set xtics () nomirror
    do for [i=1:words(files)] {
        set xtics add (word(titles, i) 3 * i - 1.5)
    }
    plot for [i=1:words(files)] word(files, i) using (3 * i - 2):2 \
             with boxes lc 1 title (i == 1 ? "tcomm" : ""), \
         for [i=1:words(files)] word(files, i) using (3 * i - 1):3 \
             with boxes lc 2 title (i == 1 ? "MPI" : "")
    exit
}

if (exists("mode") && mode eq "ratio") {
    set logscale x 2
    set format x "%.0b%B"
    set xlabel (coll eq "alltoall" ? "message size per rank and peer (bytes)" \
                                    : "message size per rank (bytes)")
    set key noenhanced top right box opaque
    set terminal pngcairo size 960,900 font ",11"
    set output out
    set multiplot layout 2,1
    set title sprintf("tcomm %s / fastest MPI formulation, %d ranks", \
                      coll, np) noenhanced
    set ylabel "tcomm / MPI (median)"
    set logscale y 2
    set yrange [0.03125:*]
    set ytics (0.03125, 0.0625, 0.125, 0.25, 0.5, 0.8, 1, 1.15, 2, 4, 8)
    plot for [i=1:words(files)] word(files, i) using 1:($3 > 0 ? $6 : 1/0) \
             with linespoints lw 2 pt 7 ps 0.6 lc i title word(titles, i), \
         1 with lines lc rgb "#000000" dt 1 notitle, \
         0.8 with lines lc rgb "#888888" dt 2 title "0.8", \
         1.15 with lines lc rgb "#888888" dt 3 title "1.15"
    set title sprintf("tcomm %s / bound (single copy at this node's copy " . \
                      "and add bandwidth)", coll) noenhanced
    set ylabel "tcomm / bound"
    set yrange [0.5:*]
    set ytics auto
    plot for [i=1:words(files)] word(files, i) \
             using 1:($10 > 0 ? $2 / $10 : 1/0) \
             with linespoints lw 2 pt 7 ps 0.6 lc i title word(titles, i), \
         1 with lines lc rgb "#000000" dt 1 notitle, \
         1.5 with lines lc rgb "#888888" dt 2 title "1.5"
    unset multiplot
    exit
}

set title sprintf("tcomm %s vs raw MPI on the same bytes, %d ranks", \
                  coll, np) noenhanced
set logscale x 2
set logscale y 10
set format x "%.0b%B"
set xlabel (coll eq "alltoall" ? "message size per rank and peer (bytes)" \
                                : "message size per rank (bytes)")
set key noenhanced

plot for [i=1:words(files)] word(files, i) using 1:2 with linespoints \
         lw 2 pt 7 ps 0.6 lc i title sprintf("tcomm %s", word(titles, i)), \
     for [i=1:words(files)] word(files, i) using 1:3 with linespoints \
         lw 1.5 dt 2 pt 6 ps 0.6 lc i title sprintf("MPI %s", word(titles, i))
