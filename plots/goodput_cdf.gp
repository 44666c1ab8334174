# The distribution of the flows' goodput, one line per run: a CDF, the fraction of a run's finished flows whose
# goodput (size x 8 / FCT) is at or below x.  On a permutation at line rate every flow could get the line: a
# vertical step near it is an even spread, a long tail to the left the flows that hash collisions slowed.
# Set by `rocesim compare --goodput` before this template: dat, title, nruns, legend[1..nruns].
# Data: dat (a block per run: goodput in Gbit/s, fraction of the run's finished flows at or below it).
if (!exists("outname")) outname = 'goodput_cdf.png'
set terminal pngcairo size 900,560 noenhanced font 'DejaVu Sans,10'
set output outname
set linetype 1 lc rgb '#1f77b4' pt 7
set linetype 2 lc rgb '#d62728' pt 5
set linetype 3 lc rgb '#2ca02c' pt 9
set linetype 4 lc rgb '#ff7f0e' pt 11
set linetype 5 lc rgb '#9467bd' pt 13
set linetype 6 lc rgb '#8c564b' pt 7
set linetype 7 lc rgb '#e377c2' pt 5
set linetype 8 lc rgb '#17becf' pt 9
set datafile missing '-'
set title title font ',12'
set xlabel 'goodput per flow (Gbit/s: flow size x 8 / FCT)'
set ylabel 'fraction of flows (goodput <= x)'
set xrange [0:*]
set yrange [0:1.02]
set ytics 0.1
set grid
set key inside left top box opaque
plot for [i=1:nruns] dat index (i - 1) using 1:2 with steps lw 2 lt i title legend[i]
