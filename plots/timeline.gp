# A workload's iteration(s) per GPU: each rank's compute (bars above its line) and its part of each collective
# or message (below it, so that communication hidden behind compute shows), from timeline.csv.
# Set by rocesim before this template: name, xunit, xend, nb, bname[1..nb] (the activities present),
# bcols (their colour numbers, 0 compute .. 5 send_recv), nranks.
# Data: timeline.dat, a block per activity of bars "x_mid rank x_half y_half".
if (!exists("outname")) outname = 'timeline.png'
set terminal pngcairo size 1200,620 noenhanced font 'DejaVu Sans,10'
set output outname
array col[6] = ['#9e9e9e', '#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd']
set title sprintf("%s: timeline per GPU (compute above each rank's line, communication below)", name)
set xlabel sprintf('time (%s)', xunit)
set ylabel 'GPU (rank)'
set xrange [0:xend]
set yrange [-0.6:nranks - 0.4]
if (nranks <= 32) set ytics 1; else set ytics autofreq
set grid xtics
set key outside right top box opaque
set style fill solid 0.85 noborder
plot for [i=1:nb] 'timeline.dat' index (i-1) using 1:2:3:4 with boxxyerror lc rgb col[int(word(bcols, i)) + 1] title bname[i]
