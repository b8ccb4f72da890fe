# SPDX-License-Identifier: BSD-3-Clause
# A PNG per collective for `make bench` (scripts/bench-sweep.sh):
# latency against message size, log-log, tcomm (solid) against the raw MPI
# call on the same bytes (dashed), one colour per result set.
#
# gnuplot -e "coll='allreduce'; files='a.dat b.dat'; titles='f32 bf16';
#             out='allreduce.png'; np=2" plot.gp
# .dat columns: bytes, tcomm median us, MPI median us, tcomm mean us,
# MPI mean us, ratio, difference us.

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
