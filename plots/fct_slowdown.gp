# FCT slowdown against flow size, as the HPCC paper draws it (figures 11 and 12): p50 left, p95 right, one
# line per run.  The x axis is the flows sorted by size in 20 buckets of 5 % of the flows each (not a linear
# size axis), each labelled by its largest flow.
# Set by `rocesim compare --plot` before this template: dat, title, nruns, legend[1..nruns].
# Data: dat (bucket, label, largest size in bytes, then per run p50 and p95; - where no flow finished).
if (!exists("outname")) outname = 'fct_slowdown.png'
set terminal pngcairo size 1400,560 noenhanced font 'DejaVu Sans,10'
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
set multiplot layout 1,2 title title font ',12'
set xlabel 'flow size (bytes; each tick: the largest flow of a 5 % bucket of the flows, KB = 1000 B)'
set logscale y
set ytics 2
set mytics 2
set offsets 0.3, 0.6, 0, 0
set grid
set xtics rotate by -45 nomirror
set key inside left top box opaque
set ylabel 'FCT slowdown (FCT / ideal FCT), log scale'
set title 'median (p50)'
plot for [i=1:nruns] dat using 1:(column(2 + 2 * i)):xtic(2) with linespoints lw 1.5 ps 0.8 lt i title legend[i]
set title '95th percentile (p95)'
unset key  # the same runs as on the left
plot for [i=1:nruns] dat using 1:(column(3 + 2 * i)):xtic(2) with linespoints lw 1.5 ps 0.8 lt i title legend[i]
unset multiplot
